//! The patterns beyond MPI (docs/diagnosis.md "Beyond MPI") on real traces: a host synchronizing with its GPU
//! in PyTorch/Kineto (HTA's test data: `cudaStreamSynchronize`) and in an Nsight Systems export of an MPI +
//! CUDA run (blocking `cudaMemcpy` after a kernel), through `wait_states` as `weft waits` computes them.

use crate::common::{self, read::read_path};
use weft::analyses::diagnosis::waits::{wait_states, Pattern, Wait};
use weft::model::Trace;

fn gpu_waits(trace: &Trace) -> Vec<Wait> {
    wait_states(trace).waits.into_iter().filter(|w| w.pattern == Pattern::GpuSynchronize).collect()
}

/// Every GPU wait starts at its call's enter, lies inside the call, and ends where a piece of device work
/// on its cause's stream ends (the last one the call waited for).
fn check_shape(t: &Trace, waits: &[Wait]) {
    let iv = &t.intervals;
    for w in waits {
        assert_eq!(w.start_ns, iv.start_ns[w.call]);
        assert!(w.end_ns > w.start_ns && w.end_ns <= iv.end_ns(w.call), "{w:?} outside its call");
        let stream = w.cause_location.expect("a GPU wait has the stream it waited for");
        assert_eq!(w.cause_ns, w.end_ns);
        assert!(
            t.intervals_of(stream).any(|j| iv.depth[j] == 0 && iv.end_ns(j) == w.end_ns),
            "{w:?}: no device work on {} ends where the wait does",
            t.location_name(stream)
        );
    }
}

#[test]
fn kineto_stream_synchronize_waits_for_the_kernels_it_synchronizes_with() {
    let Some(dir) = common::shared_traces("waits_beyond (Kineto)") else { return };
    let t = read_path(&dir.join("chrome-json/hta/critical_path_simple_add_trace.json.gz")).unwrap();
    let waits = gpu_waits(&t);
    check_shape(&t, &waits);
    let names: std::collections::BTreeSet<&str> =
        waits.iter().map(|w| t.region_name(t.intervals.region[w.call])).collect();
    // The cudaDeviceSynchronize calls find the device idle (their 17-25 us are the call's own cost); the
    // cudaStreamWaitEvent calls make the device wait, not the host.
    assert_eq!(names.into_iter().collect::<Vec<_>>(), vec!["cudaStreamSynchronize"]);
    assert_eq!(waits.len(), 8, "the eight stream synchronizations that found kernels running");
    assert_eq!(waits.iter().map(|w| w.end_ns - w.start_ns).sum::<u64>(), 470_000);
}

#[test]
fn nsys_blocking_copies_wait_for_the_kernel_before_them_once() {
    let Some(dir) = common::shared_traces("waits_beyond (Nsight Systems)") else { return };
    let t = read_path(&dir.join("nsys/pipit-saxpy-mpi-cuda/saxpy-mpi-cuda_nsys_perlmutter0.sqlite")).unwrap();
    let waits = gpu_waits(&t);
    check_shape(&t, &waits);
    // The export nests a cudaMemcpy in a cudaMemcpy: the outer call owns the wait, counted once.
    for w in &waits {
        let iv = &t.intervals;
        let (s, e) = (iv.start_ns[w.call], iv.end_ns(w.call));
        assert!(
            !waits.iter().any(|o| o.call != w.call && iv.start_ns[o.call] <= s && e <= iv.end_ns(o.call)),
            "{w:?} is nested in another wait"
        );
    }
    // The device-to-host copy after each of the five saxpy kernels waits for the kernel to end (17.7 ms);
    // the host-to-device copies wait some us for the previous pageable copy's DMA.
    let on_kernel: Vec<&Wait> = waits
        .iter()
        .filter(|w| {
            let s = w.cause_location.unwrap();
            t.intervals_of(s)
                .any(|j| t.intervals.end_ns(j) == w.end_ns && t.region_name(t.intervals.region[j]).starts_with("saxpy"))
        })
        .collect();
    assert_eq!(on_kernel.len(), 5);
    assert!(on_kernel.iter().all(|w| (17_000_000..18_000_000).contains(&(w.end_ns - w.start_ns))), "{on_kernel:?}");
    assert_eq!(waits.len(), 10);
}
