/* placeholder until implemented */
typedef int tp_placeholder_plan_write;
