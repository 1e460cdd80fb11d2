/* tplan built without MPI (TP_MPI off or Open MPI not found): --mpi says so and fails. */
#include "par.h"
#include "tp/base.h"

bool tpMpi_Init(int *rank, int *size)
{
    *rank = 0;
    *size = 1;
    tpLog(TP_LOG_ERROR, "--mpi: this tplan was built without MPI (install libopenmpi-dev and build with -DTP_MPI=ON)");
    return false;
}

void tpMpi_Finalize(void) {}

int tpMpi_Plan(const tpParTask *task, tpParOutcome *out, char *err, size_t errlen)
{
    (void)task;
    (void)out;
    snprintf(err, errlen, "--mpi: this tplan was built without MPI");
    return TP_EXIT_BAD_INPUT;
}

bool tpMpi_SendBytes(int to, const void *buf, size_t n)
{
    (void)to;
    (void)buf;
    (void)n;
    return false;
}

bool tpMpi_RecvBytes(int from, void *buf, size_t n)
{
    (void)from;
    (void)buf;
    (void)n;
    return false;
}

int tpMpi_Broadcast(int v)
{
    return v;
}
