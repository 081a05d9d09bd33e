//! What the measuring examples share.
#![allow(dead_code, reason = "each example uses a subset of these helpers")]

/// The adapter a report was measured on, as every example's JSON names it.
pub fn adapter_json(info: &wgpu::AdapterInfo) -> serde_json::Value {
    serde_json::json!({
        "name": info.name,
        "backend": format!("{:?}", info.backend),
        "device_type": format!("{:?}", info.device_type),
        "driver": info.driver,
        "driver_info": info.driver_info,
    })
}

/// Command-line handling shared by the measuring examples: `--help` prints `usage` and exits 0;
/// a bad option or value prints one line and the usage on stderr and exits 2 (never a panic).
pub struct Cli {
    args: std::iter::Skip<std::env::Args>,
    usage: &'static str,
}

impl Cli {
    /// The process's arguments after the program name.
    pub fn new(usage: &'static str) -> Self {
        Self {
            args: std::env::args().skip(1),
            usage,
        }
    }

    /// The next option, or `None` at the end; `--help` / `-h` print the usage and exit.
    pub fn next_option(&mut self) -> Option<String> {
        let arg = self.args.next()?;
        if arg == "--help" || arg == "-h" {
            println!("{}", self.usage);
            std::process::exit(0);
        }
        Some(arg)
    }

    /// The value after option `option`, parsed.
    pub fn value<T: std::str::FromStr>(&mut self, option: &str) -> T {
        match self.args.next().map(|v| v.parse::<T>()) {
            Some(Ok(v)) => v,
            Some(Err(_)) => self.fail(&format!("{option}: not a valid value")),
            None => self.fail(&format!("{option} needs a value")),
        }
    }

    /// Prints `message` and the usage on stderr and exits with status 2.
    pub fn fail(&self, message: &str) -> ! {
        eprintln!("error: {message}\n\n{}", self.usage);
        std::process::exit(2);
    }
}
