//! What the measuring examples share.

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
