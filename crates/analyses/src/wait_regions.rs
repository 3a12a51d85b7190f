//! Which regions are waiting: communication and synchronization (MPI, OpenMP barriers and waits, pthread
//! joins and locks, GPU synchronization, NCCL) and OS-runtime calls that block. One classification behind busy
//! = compute ([`crate::busy`]), the particle view's default events, and the diagnosis' thread waits
//! ([`crate::diagnosis`]); a leaf both use, so neither imports the other for it.

use weft_model::{Paradigm, RegionRole, Trace};

/// Whether a region is communication or synchronization: by the role and paradigm the format records,
/// and by name for formats that record neither (or record them only partly).
pub fn is_communication_or_sync(name: &str, paradigm: Paradigm, role: RegionRole) -> bool {
    if matches!(
        role,
        RegionRole::Barrier
            | RegionRole::ImplicitBarrier
            | RegionRole::TaskWait
            | RegionRole::Collective
            | RegionRole::PointToPoint
    ) {
        return true;
    }
    if paradigm == Paradigm::Mpi {
        return true;
    }
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("mpi_") || lower.starts_with("pmpi_") || lower.starts_with("nccl") {
        return true;
    }
    let omp = paradigm == Paradigm::OpenMp
        || lower.starts_with("!$omp")
        || lower.starts_with("#pragma omp")
        || lower.starts_with("omp_")
        || lower.starts_with("__kmpc_")
        || lower.starts_with("gomp_");
    if omp && ["barrier", "taskwait", "wait", "_lock", "taskgroup"].iter().any(|w| lower.contains(w)) {
        return true;
    }
    let pthread = paradigm == Paradigm::Pthread || lower.starts_with("pthread_");
    if pthread && ["join", "wait", "cond", "mutex", "barrier", "lock"].iter().any(|w| lower.contains(w)) {
        return true;
    }
    let gpu_api = matches!(paradigm, Paradigm::Cuda | Paradigm::Gpu)
        || lower.starts_with("cuda")
        || lower.starts_with("cu")
        || lower.starts_with("hip");
    gpu_api && (lower.contains("synchronize") || lower.contains("waitevent") || lower.contains("streamwait"))
}

/// The category the Nsight Systems reader gives `OSRT_API` rows (OS runtime library calls).
pub const OS_RUNTIME: &str = "OS runtime";

/// OS runtime calls that block the calling thread until something else happens (a descriptor ready, a
/// lock, a signal, a child, a peer, time passing), by their libc names.
///
/// Left out on purpose: `read`, `readv`, `pread` and `write` (an OS-runtime row does not say whether the
/// descriptor is a pipe or socket, where it waits, or a file, where the call is the thread's own I/O work, and
/// file I/O is what most HPC programs read with: counted busy), and `ioctl`, `open`, `mmap` and the like.
/// `recv*` and `accept` only ever read sockets, so they are waits.
const OS_BLOCKING_CALLS: [&str; 45] = [
    "poll",
    "ppoll",
    "select",
    "pselect",
    "pselect6",
    "epoll_wait",
    "epoll_pwait",
    "epoll_pwait2",
    "futex",
    "nanosleep",
    "clock_nanosleep",
    "usleep",
    "sleep",
    "pause",
    "sem_wait",
    "sem_timedwait",
    "sem_clockwait",
    "pthread_cond_wait",
    "pthread_cond_timedwait",
    "pthread_cond_clockwait",
    "pthread_join",
    "pthread_timedjoin_np",
    "pthread_clockjoin_np",
    "pthread_mutex_lock",
    "pthread_mutex_timedlock",
    "pthread_mutex_clocklock",
    "pthread_rwlock_rdlock",
    "pthread_rwlock_wrlock",
    "pthread_barrier_wait",
    "pthread_spin_lock",
    "wait",
    "waitpid",
    "wait3",
    "wait4",
    "waitid",
    "accept",
    "accept4",
    "recv",
    "recvfrom",
    "recvmsg",
    "recvmmsg",
    "sigwait",
    "sigtimedwait",
    "sigwaitinfo",
    "mq_receive",
];

/// Whether a region is an OS runtime call that blocks ([`OS_BLOCKING_CALLS`]): only regions of the
/// [`OS_RUNTIME`] category, so that a user function named `select` or `wait` stays what it is. A name may
/// carry glibc's `__` or `__libc_` prefix.
pub fn is_os_runtime_wait(name: &str, category: &str) -> bool {
    if !category.eq_ignore_ascii_case(OS_RUNTIME) {
        return false;
    }
    let base = name.trim_start_matches('_');
    let base = base.strip_prefix("libc_").unwrap_or(base);
    OS_BLOCKING_CALLS.iter().any(|c| c.eq_ignore_ascii_case(base))
}

/// Whether region `r` of `trace` is a wait under busy = compute: communication or synchronization
/// ([`is_communication_or_sync`]) or an OS runtime call that blocks ([`is_os_runtime_wait`]). The one
/// classification behind the compute busy time (moments, a store's pyramid and moments) and the particle
/// view's default events.
pub fn is_wait_region(trace: &Trace, r: usize) -> bool {
    let regions = &trace.regions;
    let name = trace.str(regions.name[r]);
    is_communication_or_sync(name, regions.paradigm[r], regions.role[r])
        || is_os_runtime_wait(name, trace.str(regions.category[r]))
}
