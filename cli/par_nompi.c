/* The program tplan, which never links MPI (so that it starts where Open MPI is not installed):
 * --mpi says so and fails, naming tplan-mpi when the build made it (TP_MPI), else how to build it. */
#include "par.h"
#include "tp/base.h"

#if TP_HAVE_MPI_PROGRAM
#define NO_MPI "--mpi: this program is tplan, without MPI: run tplan-mpi (mpirun -np R tplan-mpi ...)"
#else
#define NO_MPI                                                                                                         \
    "--mpi: this tplan was built without MPI (install libopenmpi-dev and build with -DTP_MPI=ON for tplan-mpi)"
#endif

bool tpMpi_Init(int *rank, int *size)
{
    *rank = 0;
    *size = 1;
    tpLog(TP_LOG_ERROR, "%s", NO_MPI);
    return false;
}

void tpMpi_Finalize(void) {}

int tpMpi_Plan(const tpParTask *task, tpParOutcome *out, char *err, size_t errlen)
{
    (void)task;
    (void)out;
    snprintf(err, errlen, "%s", NO_MPI);
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
