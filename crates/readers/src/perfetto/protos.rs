//! The part of Perfetto's trace protos that weft reads, as prost messages written by hand: each field carries
//! the number it has in Perfetto's published `.proto` files (protos/perfetto/trace/trace_packet.proto,
//! track_event/track_event.proto, track_event/track_descriptor.proto, track_event/process_descriptor.proto,
//! track_event/thread_descriptor.proto, track_event/counter_descriptor.proto, track_event/debug_annotation.proto,
//! interned_data/interned_data.proto, clock_snapshot.proto, trace_packet_defaults.proto), so no build step or
//! protoc is needed and the decoder stays pure Rust (wasm too). Fields weft does not read are left out: prost
//! skips them. A `oneof` member is an optional field of its own (the wire carries one of them).
//!
//! It must hold no logic: what the fields mean is `convert.rs`'s business.

// prost's derive writes the `Message` impls; the field names are the protos'.
#![allow(clippy::derive_partial_eq_without_eq)]

/// `Trace` (trace.proto): the file. The reader frames its packets itself, to stream them; this is for writing
/// traces (tests, benchmarks).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Trace {
    #[prost(message, repeated, tag = "1")]
    pub packet: Vec<TracePacket>,
}

/// `TracePacket`: one record of the trace (trace_packet.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TracePacket {
    #[prost(uint64, optional, tag = "8")]
    pub timestamp: Option<u64>,
    #[prost(uint32, optional, tag = "58")]
    pub timestamp_clock_id: Option<u32>,
    #[prost(message, optional, tag = "11")]
    pub track_event: Option<TrackEvent>,
    #[prost(message, optional, tag = "60")]
    pub track_descriptor: Option<TrackDescriptor>,
    #[prost(message, optional, tag = "6")]
    pub clock_snapshot: Option<ClockSnapshot>,
    /// Legacy: the sequence's process (before track descriptors).
    #[prost(message, optional, tag = "43")]
    pub process_descriptor: Option<ProcessDescriptor>,
    /// Legacy: the sequence's thread, where its track events go when they name no track.
    #[prost(message, optional, tag = "44")]
    pub thread_descriptor: Option<ThreadDescriptor>,
    /// zlib-compressed packets (a `Trace`'s bytes), written when the service compresses.
    #[prost(bytes = "vec", optional, tag = "50")]
    pub compressed_packets: Option<Vec<u8>>,
    #[prost(uint32, optional, tag = "10")]
    pub trusted_packet_sequence_id: Option<u32>,
    #[prost(message, optional, tag = "12")]
    pub interned_data: Option<InternedData>,
    #[prost(uint32, optional, tag = "13")]
    pub sequence_flags: Option<u32>,
    #[prost(bool, optional, tag = "41")]
    pub incremental_state_cleared: Option<bool>,
    #[prost(message, optional, tag = "59")]
    pub trace_packet_defaults: Option<TracePacketDefaults>,
    #[prost(uint32, optional, tag = "42")]
    pub previous_packet_dropped: Option<u32>,
    /// Kernel trace events of one CPU (ftrace/ftrace_event_bundle.proto).
    #[prost(message, optional, tag = "1")]
    pub ftrace_events: Option<FtraceEventBundle>,
}

/// `FtraceEventBundle`: one CPU's ftrace events, each kept as its bytes (its kind is the number of its one
/// data field, which `sched.rs` reads off to count the kinds it does not read).
#[derive(Clone, PartialEq, prost::Message)]
pub struct FtraceEventBundle {
    #[prost(uint32, optional, tag = "1")]
    pub cpu: Option<u32>,
    #[prost(bytes = "vec", repeated, tag = "2")]
    pub event: Vec<Vec<u8>>,
    #[prost(message, optional, tag = "4")]
    pub compact_sched: Option<CompactSched>,
}

/// `FtraceEvent` (ftrace/ftrace_event.proto): the fields weft reads; the other kinds are left to prost.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FtraceEvent {
    #[prost(uint64, optional, tag = "1")]
    pub timestamp: Option<u64>,
    #[prost(uint32, optional, tag = "2")]
    pub pid: Option<u32>,
    #[prost(message, optional, tag = "4")]
    pub sched_switch: Option<SchedSwitchFtraceEvent>,
}

/// `FtraceEvent`'s fields that are no event's data (timing and process): the rest name its kind.
pub fn is_ftrace_header_field(field: u32) -> bool {
    matches!(field, 1 | 2 | 5)
}

/// `FtraceEvent.sched_switch`'s field number.
pub const FTRACE_SCHED_SWITCH: u32 = 4;

/// `SchedSwitchFtraceEvent` (ftrace/sched.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct SchedSwitchFtraceEvent {
    #[prost(string, optional, tag = "1")]
    pub prev_comm: Option<String>,
    #[prost(int32, optional, tag = "2")]
    pub prev_pid: Option<i32>,
    #[prost(string, optional, tag = "5")]
    pub next_comm: Option<String>,
    #[prost(int32, optional, tag = "6")]
    pub next_pid: Option<i32>,
}

/// `FtraceEventBundle.CompactSched`: a bundle's sched_switch events as columns; timestamps delta-encoded
/// (the first absolute), comms as indices into the bundle's intern table.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CompactSched {
    #[prost(string, repeated, tag = "5")]
    pub intern_table: Vec<String>,
    #[prost(uint64, repeated, packed = "true", tag = "1")]
    pub switch_timestamp: Vec<u64>,
    #[prost(int32, repeated, packed = "true", tag = "3")]
    pub switch_next_pid: Vec<i32>,
    #[prost(uint32, repeated, packed = "true", tag = "6")]
    pub switch_next_comm_index: Vec<u32>,
}

/// The names of the ftrace event kinds most traces hold besides sched_switch, by `FtraceEvent` field number
/// (ftrace/ftrace_event.proto), for the warning that counts them; others are named by number.
pub fn ftrace_kind_name(field: u32) -> Option<&'static str> {
    Some(match field {
        3 => "print",
        11 => "cpu_frequency",
        13 => "cpu_idle",
        17 => "sched_wakeup",
        18 => "sched_blocked_reason",
        20 => "sched_waking",
        24 => "softirq_entry",
        25 => "softirq_exit",
        36 => "irq_handler_entry",
        37 => "irq_handler_exit",
        57 => "workqueue_execute_end",
        58 => "workqueue_execute_start",
        114 => "sched_wakeup_new",
        235 => "task_newtask",
        236 => "task_rename",
        237 => "sched_process_exec",
        238 => "sched_process_exit",
        239 => "sched_process_fork",
        240 => "sched_process_free",
        329 => "sys_enter",
        330 => "sys_exit",
        _ => return None,
    })
}

/// `TracePacket.SequenceFlags`.
pub const SEQ_INCREMENTAL_STATE_CLEARED: u32 = 1;
pub const SEQ_NEEDS_INCREMENTAL_STATE: u32 = 2;

/// `TracePacketDefaults` (trace_packet_defaults.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TracePacketDefaults {
    #[prost(uint32, optional, tag = "58")]
    pub timestamp_clock_id: Option<u32>,
    #[prost(message, optional, tag = "11")]
    pub track_event_defaults: Option<TrackEventDefaults>,
}

/// `TrackEventDefaults` (track_event.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TrackEventDefaults {
    #[prost(uint64, optional, tag = "11")]
    pub track_uuid: Option<u64>,
    #[prost(uint64, repeated, packed = "false", tag = "31")]
    pub extra_counter_track_uuids: Vec<u64>,
    #[prost(uint64, repeated, packed = "false", tag = "45")]
    pub extra_double_counter_track_uuids: Vec<u64>,
}

/// `TrackEvent` (track_event.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TrackEvent {
    #[prost(uint64, repeated, packed = "false", tag = "3")]
    pub category_iids: Vec<u64>,
    #[prost(string, repeated, tag = "22")]
    pub categories: Vec<String>,
    #[prost(uint64, optional, tag = "10")]
    pub name_iid: Option<u64>,
    #[prost(string, optional, tag = "23")]
    pub name: Option<String>,
    /// `TrackEvent.Type`: the `TYPE_*` constants below.
    #[prost(int32, optional, tag = "9")]
    pub r#type: Option<i32>,
    #[prost(uint64, optional, tag = "11")]
    pub track_uuid: Option<u64>,
    #[prost(int64, optional, tag = "30")]
    pub counter_value: Option<i64>,
    #[prost(double, optional, tag = "44")]
    pub double_counter_value: Option<f64>,
    #[prost(uint64, repeated, packed = "false", tag = "31")]
    pub extra_counter_track_uuids: Vec<u64>,
    #[prost(int64, repeated, packed = "false", tag = "12")]
    pub extra_counter_values: Vec<i64>,
    #[prost(uint64, repeated, packed = "false", tag = "45")]
    pub extra_double_counter_track_uuids: Vec<u64>,
    #[prost(double, repeated, packed = "false", tag = "46")]
    pub extra_double_counter_values: Vec<f64>,
    #[prost(uint64, repeated, packed = "false", tag = "36")]
    pub flow_ids_old: Vec<u64>,
    #[prost(fixed64, repeated, packed = "false", tag = "47")]
    pub flow_ids: Vec<u64>,
    #[prost(uint64, repeated, packed = "false", tag = "42")]
    pub terminating_flow_ids_old: Vec<u64>,
    #[prost(fixed64, repeated, packed = "false", tag = "48")]
    pub terminating_flow_ids: Vec<u64>,
    #[prost(message, repeated, tag = "4")]
    pub debug_annotations: Vec<DebugAnnotation>,
    #[prost(int64, optional, tag = "1")]
    pub timestamp_delta_us: Option<i64>,
    #[prost(int64, optional, tag = "16")]
    pub timestamp_absolute_us: Option<i64>,
    #[prost(message, optional, tag = "6")]
    pub legacy_event: Option<LegacyEvent>,
}

pub const TYPE_SLICE_BEGIN: i32 = 1;
pub const TYPE_SLICE_END: i32 = 2;
pub const TYPE_INSTANT: i32 = 3;
pub const TYPE_COUNTER: i32 = 4;

/// `TrackEvent.LegacyEvent`: a Chrome JSON event's phase and duration carried in a track event.
#[derive(Clone, PartialEq, prost::Message)]
pub struct LegacyEvent {
    #[prost(uint64, optional, tag = "1")]
    pub name_iid: Option<u64>,
    /// The JSON phase letter as a number (`'X'` = 88).
    #[prost(int32, optional, tag = "2")]
    pub phase: Option<i32>,
    #[prost(int64, optional, tag = "3")]
    pub duration_us: Option<i64>,
}

/// `DebugAnnotation` (debug_annotation.proto): an event's argument.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DebugAnnotation {
    #[prost(uint64, optional, tag = "1")]
    pub name_iid: Option<u64>,
    #[prost(string, optional, tag = "10")]
    pub name: Option<String>,
    #[prost(bool, optional, tag = "2")]
    pub bool_value: Option<bool>,
    #[prost(uint64, optional, tag = "3")]
    pub uint_value: Option<u64>,
    #[prost(int64, optional, tag = "4")]
    pub int_value: Option<i64>,
    #[prost(double, optional, tag = "5")]
    pub double_value: Option<f64>,
    #[prost(uint64, optional, tag = "7")]
    pub pointer_value: Option<u64>,
    #[prost(string, optional, tag = "9")]
    pub legacy_json_value: Option<String>,
    #[prost(string, optional, tag = "6")]
    pub string_value: Option<String>,
    #[prost(uint64, optional, tag = "17")]
    pub string_value_iid: Option<u64>,
    #[prost(message, repeated, tag = "11")]
    pub dict_entries: Vec<DebugAnnotation>,
    #[prost(message, repeated, tag = "12")]
    pub array_values: Vec<DebugAnnotation>,
}

/// `TrackDescriptor` (track_descriptor.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TrackDescriptor {
    #[prost(uint64, optional, tag = "1")]
    pub uuid: Option<u64>,
    #[prost(uint64, optional, tag = "5")]
    pub parent_uuid: Option<u64>,
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "10")]
    pub static_name: Option<String>,
    #[prost(string, optional, tag = "13")]
    pub atrace_name: Option<String>,
    #[prost(message, optional, tag = "3")]
    pub process: Option<ProcessDescriptor>,
    #[prost(message, optional, tag = "4")]
    pub thread: Option<ThreadDescriptor>,
    #[prost(message, optional, tag = "8")]
    pub counter: Option<CounterDescriptor>,
    #[prost(int32, optional, tag = "12")]
    pub sibling_order_rank: Option<i32>,
}

/// `ProcessDescriptor` (process_descriptor.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ProcessDescriptor {
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
    #[prost(string, repeated, tag = "2")]
    pub cmdline: Vec<String>,
    #[prost(string, optional, tag = "6")]
    pub process_name: Option<String>,
    #[prost(int32, optional, tag = "3")]
    pub legacy_sort_index: Option<i32>,
    #[prost(string, repeated, tag = "8")]
    pub process_labels: Vec<String>,
}

/// `ThreadDescriptor` (thread_descriptor.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ThreadDescriptor {
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
    #[prost(int64, optional, tag = "2")]
    pub tid: Option<i64>,
    #[prost(string, optional, tag = "5")]
    pub thread_name: Option<String>,
    #[prost(int64, optional, tag = "6")]
    pub reference_timestamp_us: Option<i64>,
    #[prost(int32, optional, tag = "3")]
    pub legacy_sort_index: Option<i32>,
}

/// `CounterDescriptor` (counter_descriptor.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct CounterDescriptor {
    /// `BuiltinCounterType`: 1 thread time (ns), 2 thread instruction count.
    #[prost(int32, optional, tag = "1")]
    pub r#type: Option<i32>,
    /// `Unit`: 1 time (ns), 2 count, 3 size (bytes).
    #[prost(int32, optional, tag = "3")]
    pub unit: Option<i32>,
    #[prost(string, optional, tag = "6")]
    pub unit_name: Option<String>,
    #[prost(int64, optional, tag = "4")]
    pub unit_multiplier: Option<i64>,
    #[prost(bool, optional, tag = "5")]
    pub is_incremental: Option<bool>,
}

/// `InternedData` (interned_data/interned_data.proto): the strings a sequence's later packets name by iid.
#[derive(Clone, PartialEq, prost::Message)]
pub struct InternedData {
    #[prost(message, repeated, tag = "1")]
    pub event_categories: Vec<Interned>,
    #[prost(message, repeated, tag = "2")]
    pub event_names: Vec<Interned>,
    #[prost(message, repeated, tag = "3")]
    pub debug_annotation_names: Vec<Interned>,
    #[prost(message, repeated, tag = "29")]
    pub debug_annotation_string_values: Vec<InternedBytes>,
}

/// `EventCategory`, `EventName`, `DebugAnnotationName`: an iid and its string.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Interned {
    #[prost(uint64, optional, tag = "1")]
    pub iid: Option<u64>,
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
}

/// `InternedString`: an iid and its bytes.
#[derive(Clone, PartialEq, prost::Message)]
pub struct InternedBytes {
    #[prost(uint64, optional, tag = "1")]
    pub iid: Option<u64>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub str: Option<Vec<u8>>,
}

/// `ClockSnapshot` (clock_snapshot.proto): every clock's reading at one instant.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ClockSnapshot {
    #[prost(message, repeated, tag = "1")]
    pub clocks: Vec<Clock>,
    /// `BuiltinClock`; BOOTTIME (6) when absent.
    #[prost(int32, optional, tag = "2")]
    pub primary_trace_clock: Option<i32>,
}

/// `ClockSnapshot.Clock`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Clock {
    #[prost(uint32, optional, tag = "1")]
    pub clock_id: Option<u32>,
    #[prost(uint64, optional, tag = "2")]
    pub timestamp: Option<u64>,
    #[prost(bool, optional, tag = "3")]
    pub is_incremental: Option<bool>,
    #[prost(uint64, optional, tag = "4")]
    pub unit_multiplier_ns: Option<u64>,
}

/// `BuiltinClock.BUILTIN_CLOCK_REALTIME`: wall-clock time since the epoch (how several traces line up).
pub const CLOCK_REALTIME: u32 = 1;

/// `BuiltinClock.BUILTIN_CLOCK_BOOTTIME`: the trace clock unless a snapshot names another.
pub const CLOCK_BOOTTIME: u32 = 6;

/// The names of `TracePacket`'s data fields weft does not read, by field number, for the warning that counts
/// them (trace_packet.proto); a number not here is named by its number.
pub fn packet_kind_name(field: u32) -> Option<&'static str> {
    Some(match field {
        1 => "ftrace_events",
        2 => "process_tree",
        4 => "inode_file_map",
        5 => "chrome_events",
        7 => "sys_stats",
        9 => "process_stats",
        33 => "trace_config",
        34 => "ftrace_stats",
        35 => "trace_stats",
        36 => "synchronization_marker",
        37 => "profile_packet",
        38 => "battery",
        39 => "android_log",
        40 => "power_rails",
        45 => "system_info",
        46 => "trigger",
        47 => "packages_list",
        49 => "perfetto_metatrace",
        51 => "chrome_metadata",
        52 => "gpu_counter_event",
        53 => "gpu_render_stage_event",
        54 => "streaming_profile_packet",
        57 => "graphics_frame_event",
        61 => "module_symbols",
        62 => "vulkan_memory_event",
        63 => "gpu_log",
        65 => "vulkan_api_event",
        66 => "perf_sample",
        67 => "cpu_info",
        68 => "smaps_packet",
        69 => "service_event",
        71 => "gpu_mem_total_event",
        72 => "extension_descriptor",
        73 => "memory_tracker_snapshot",
        78 => "ui_state",
        84 => "statsd_atom",
        89 => "trace_uuid",
        90 => "track_event_range_of_interest",
        95 => "etw_events",
        133 => "zstd_compressed_packets",
        135 => "stack_sample",
        _ => return None,
    })
}

/// `TracePacket` fields that are no packet's data (timing, sequence and interning): the rest are data kinds.
pub fn is_packet_header_field(field: u32) -> bool {
    matches!(field, 3 | 8 | 10 | 12 | 13 | 41 | 42 | 58 | 59 | 79 | 87 | 98)
}

/// Data kinds weft reads.
pub fn is_read_kind(field: u32) -> bool {
    matches!(field, 1 | 6 | 11 | 43 | 44 | 50 | 60)
}
