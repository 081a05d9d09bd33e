//! One module per subcommand.
pub mod asset_args;
pub mod bench;
pub mod bench_gpu;
pub mod compress;
pub mod info;
pub mod mirror;
pub mod play;
pub mod play_graph;
pub mod play_output;
pub mod pose;
pub mod pose_graph;
pub mod pose_report;
pub mod render;
pub mod retarget;
pub mod retarget_map;
pub mod view;
