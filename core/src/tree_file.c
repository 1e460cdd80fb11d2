/* placeholder until implemented */
typedef int tp_placeholder_tree_file;
