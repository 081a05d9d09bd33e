//! One module per subcommand.
pub mod asset_args;
pub mod bench;
pub mod info;
pub mod pose;
pub mod render;
pub mod view;
