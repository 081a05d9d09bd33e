//! The static server of `cargo xtask web`: one folder on 127.0.0.1, GET only, a thread per
//! connection, with the content types a page with WebAssembly needs (`application/wasm` lets
//! the browser compile while it downloads).

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

/// Serves `dir` on `127.0.0.1:port` until the process is stopped.
///
/// # Errors
/// When the port cannot be bound.
pub(crate) fn serve(dir: &Path, port: u16) -> Result<(), String> {
    let (listener, addr) = bind(port)?;
    println!(
        "xtask web: serving {} at http://{addr}/ (Ctrl-C stops)",
        dir.display()
    );
    accept(dir, &listener);
    Ok(())
}

/// Serves `dir` on a free port of 127.0.0.1 from a background thread for the rest of the
/// process (the browser check's server); returns its address.
///
/// # Errors
/// When no port can be bound.
pub(crate) fn spawn(dir: &Path) -> Result<SocketAddr, String> {
    let (listener, addr) = bind(0)?;
    let dir = dir.to_path_buf();
    std::thread::spawn(move || accept(&dir, &listener));
    Ok(addr)
}

/// Binds `127.0.0.1:port` (0: any free port).
fn bind(port: u16) -> Result<(TcpListener, SocketAddr), String> {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("no local address: {e}"))?;
    Ok((listener, addr))
}

/// Answers every connection on `listener` from `dir`, a thread per connection.
fn accept(dir: &Path, listener: &TcpListener) {
    for stream in listener.incoming().flatten() {
        let dir = dir.to_path_buf();
        std::thread::spawn(move || {
            if let Err(e) = answer(&dir, stream) {
                eprintln!("xtask web: {e}");
            }
        });
    }
}

/// Reads one request and answers it.
fn answer(dir: &Path, mut stream: TcpStream) -> std::io::Result<()> {
    let mut request_line = String::new();
    let mut reader = BufReader::new(stream.try_clone()?);
    reader.read_line(&mut request_line)?;
    // Headers are read and ignored.
    let mut header = String::new();
    while reader.read_line(&mut header)? > 2 {
        header.clear();
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let file = (method == "GET" || method == "HEAD")
        .then(|| resolve(dir, target))
        .flatten();
    let Some((path, body)) = file.and_then(|p| std::fs::read(&p).ok().map(|b| (p, b))) else {
        let msg = b"not found\n";
        write!(
            stream,
            "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            msg.len()
        )?;
        return stream.write_all(msg);
    };
    write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        content_type(&path),
        body.len()
    )?;
    if method == "GET" {
        stream.write_all(&body)?;
    }
    Ok(())
}

/// The file under `dir` a request target names (query dropped, `/` → `index.html`); `None`
/// for targets that leave `dir` (`..`, absolute components).
fn resolve(dir: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let rel = path.trim_start_matches('/');
    let rel = if rel.is_empty() || rel.ends_with('/') {
        format!("{rel}index.html")
    } else {
        rel.to_owned()
    };
    let rel = Path::new(&rel);
    rel.components()
        .all(|c| matches!(c, Component::Normal(_)))
        .then(|| dir.join(rel))
}

/// The `Content-Type` for a file's extension.
fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript",
        "wasm" => "application/wasm",
        "glb" => "model/gltf-binary",
        "gltf" => "model/gltf+json",
        "png" => "image/png",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_resolve_inside_the_folder_only() {
        let dir = Path::new("/srv");
        assert_eq!(
            resolve(dir, "/?backend=webgl2"),
            Some(dir.join("index.html"))
        );
        assert_eq!(resolve(dir, "/skel_web.js"), Some(dir.join("skel_web.js")));
        assert_eq!(resolve(dir, "/../etc/passwd"), None);
        assert_eq!(content_type(Path::new("a.wasm")), "application/wasm");
    }
}
