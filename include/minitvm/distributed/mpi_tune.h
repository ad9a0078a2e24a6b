/** \file
 * Network tuning over MPI ranks (`mpirun -n K minitvm tune MODEL ... --mpi`).
 *
 * Every rank runs the same program and extracts the same tasks. Rank 0 runs the task scheduler
 * (autotune::tune_tasks) and writes the log; its measurer sends each batch of candidates to the
 * worker ranks (ranks 1..K-1) in chunks, and every worker builds its chunk in parallel
 * (n_parallel = hardware threads / measuring ranks on its host) and times one candidate at a time
 * under a per-host device lock (MeasureOption::run_lock_file), so that two ranks never time on one
 * CPU or GPU at once. Each outcome travels back as soon as it is final and rank 0 appends it to the
 * log on arrival, so a job that ends abruptly keeps every finished measurement and a rerun resumes.
 *
 * Faults:
 *   - a worker silent for longer than `worker_timeout_s` while it holds candidates is declared
 *     hung; its unanswered candidates are re-queued on the other workers (once; a candidate that
 *     was on two lost workers is recorded as RUN_TIMEOUT, TVM's error number 7) and the search
 *     goes on. With no worker left rank 0 measures itself. A worker's MPI thread is not its
 *     measuring thread, so a rank whose measurement hangs still takes the stop at the end: it
 *     answers, finalises and ends its process, and the job ends normally. Only a rank that does
 *     not answer the stop at all (the whole process frozen, or its host gone) makes rank 0 end the
 *     job with MPI_Abort(0) (MPI_Finalize would wait for it forever): the log is complete either
 *     way. (OpenMPI 4.1's mpiexec can itself crash while it tears such a job down.)
 *   - a worker that dies takes the job with it (OpenMPI aborts a job whose rank exits without
 *     MPI_Finalize); the log holds every outcome that arrived, and a rerun resumes from it without
 *     re-measuring them.
 *   - a worker whose device cannot time the target (cuda without a GPU) or differs from the
 *     job's device (the device of the first worker that reports; timings of two CPU models are not
 *     comparable in one search) is refused with the reason, printed by rank 0, and gets no work.
 *
 * This library is built only when CMake finds MPI (Debian: openmpi-bin, libopenmpi-dev); it
 * depends on autotune and MPI and nothing above.
 */
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "minitvm/autotune/measure.h"
#include "minitvm/autotune/task_scheduler.h"

namespace minitvm::distributed {

struct MpiOptions {
  /** A worker holding candidates that sends nothing for this long is declared hung (seconds;
   *  0 = build_timeout + (ranks + 1) x (run_timeout + 2) + 10). */
  double worker_timeout_s = 0;
  /** Messages of rank 0 (refused and lost ranks, the cluster); nullptr = none. */
  std::ostream* log = nullptr;
};

/** One process's view of the MPI job: MPI_Init_thread on construction; on destruction
 *  MPI_Finalize, or MPI_Abort(0) when a rank did not answer the stop (it could not take part). */
class MpiJob {
 public:
  MpiJob();
  ~MpiJob();
  MpiJob(const MpiJob&) = delete;
  MpiJob& operator=(const MpiJob&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  /** Ranks (this one included) on this host. */
  int local_size() const { return local_size_; }
  /** Measuring ranks on this host (rank 0 only searches unless it is alone): each builds with
   *  hardware threads / this many threads. */
  int local_workers() const { return local_workers_; }

  /**
   * Tune the tasks over the job. Rank 0 returns the summary; the other ranks serve candidates
   * until rank 0 is done and return nullopt. Every rank must pass the same tasks and options.
   */
  std::optional<autotune::NetworkTuneSummary> tune(const std::vector<autotune::WeightedTask>& tasks,
                                                   const autotune::SchedulerOptions& opt,
                                                   const autotune::MeasureOption& measure,
                                                   const MpiOptions& mpi = {});
  /** End the whole job now with this exit code (MPI_Abort), after flushing stdout and stderr: for
   *  an error on one rank that the others would wait for. */
  [[noreturn]] void abort(int code);
  /** Ranks declared hung or refused in the last tune() (rank 0 only). A hung rank still ends
   *  normally when only its measurement hung; one that did not answer the stop makes the
   *  destructor end the job with MPI_Abort(0). */
  const std::vector<int>& lost_ranks() const { return lost_; }
  const std::vector<int>& refused_ranks() const { return refused_; }

 private:
  int rank_ = 0, size_ = 1, local_size_ = 1, local_workers_ = 1;
  std::vector<int> lost_, refused_, unreachable_;
};

/** The per-host lock file the ranks of a host share for a device ("/tmp/minitvm-measure-cpu.lock").
 */
std::string device_lock_path(const std::string& device);

}  // namespace minitvm::distributed
