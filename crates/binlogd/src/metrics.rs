//! The admin endpoint: `GET /metrics` in Prometheus' text exposition format (version 0.0.4),
//! with the figures of `SHOW GLOBAL STATUS` ([`sql::Server::global_status`]).
//!
//! Each numeric status variable `Name` becomes `binlogd_global_status_name` (lower case, as
//! mysqld_exporter names `mysql_global_status_*`), typed `untyped` because the set mixes
//! counters and gauges. Non-numeric values are left out (Prometheus samples are numbers).
//!
//! The HTTP side is hand-written on tokio rather than a web framework: it serves one path
//! to a scraper, reads at most [`MAX_REQUEST`] bytes of request head within [`READ_TIMEOUT`],
//! answers and closes (`Connection: close`), so no keep-alive, chunking or body handling is
//! needed, and the server's dependency set stays as it is. It listens on 127.0.0.1 only.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Longest request head accepted.
pub const MAX_REQUEST: usize = 8192;
/// How long a client may take to send its request head.
pub const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// Serves `/metrics` on `listener` until the runtime stops.
pub async fn serve(listener: TcpListener, sql: Arc<sql::Server>) {
    loop {
        match listener.accept().await {
            Ok((socket, _)) => {
                let sql = sql.clone();
                tokio::spawn(async move {
                    if let Err(e) = answer(socket, &sql).await {
                        log::debug!("metrics request failed: {e}");
                    }
                });
            }
            Err(e) => {
                log::warn!("metrics accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

async fn answer(mut socket: TcpStream, sql: &sql::Server) -> std::io::Result<()> {
    let head = match tokio::time::timeout(READ_TIMEOUT, read_head(&mut socket)).await {
        Ok(head) => head?,
        Err(_) => return Ok(()),
    };
    let (status, content_type, body) = match route(head.as_deref()) {
        Route::Metrics => {
            ("200 OK", "text/plain; version=0.0.4; charset=utf-8", render(&sql.global_status()))
        }
        Route::NotFound => ("404 Not Found", "text/plain", "not found: try /metrics\n".into()),
        Route::MethodNotAllowed => ("405 Method Not Allowed", "text/plain", String::new()),
        Route::BadRequest => ("400 Bad Request", "text/plain", String::new()),
    };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    socket.write_all(response.as_bytes()).await?;
    socket.shutdown().await
}

/// The request head up to the blank line; None when it is too long or the client closed.
async fn read_head(socket: &mut TcpStream) -> std::io::Result<Option<String>> {
    let mut buf = Vec::with_capacity(512);
    let mut chunk = [0u8; 1024];
    loop {
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            return Ok(Some(String::from_utf8_lossy(&buf[..end]).into_owned()));
        }
        if buf.len() > MAX_REQUEST {
            return Ok(None);
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Route {
    Metrics,
    NotFound,
    MethodNotAllowed,
    BadRequest,
}

fn route(head: Option<&str>) -> Route {
    let Some(line) = head.and_then(|h| h.lines().next()) else { return Route::BadRequest };
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Route::BadRequest;
    };
    if !version.starts_with("HTTP/1.") {
        return Route::BadRequest;
    }
    let path = target.split('?').next().unwrap_or("");
    match (method, path) {
        ("GET" | "HEAD", "/metrics") => Route::Metrics,
        ("GET" | "HEAD", _) => Route::NotFound,
        _ => Route::MethodNotAllowed,
    }
}

/// The status variables as Prometheus samples.
pub fn render(status: &[(String, String)]) -> String {
    let mut out = String::with_capacity(status.len() * 64);
    for (name, value) in status {
        let Ok(number) = value.trim().parse::<f64>() else { continue };
        let metric: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
            .collect();
        out.push_str(&format!(
            "# TYPE binlogd_global_status_{metric} untyped\nbinlogd_global_status_{metric} {number}\n"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        assert_eq!(route(Some("GET /metrics HTTP/1.1\r\nHost: x")), Route::Metrics);
        assert_eq!(route(Some("GET /metrics?x=1 HTTP/1.0")), Route::Metrics);
        assert_eq!(route(Some("GET / HTTP/1.1")), Route::NotFound);
        assert_eq!(route(Some("POST /metrics HTTP/1.1")), Route::MethodNotAllowed);
        assert_eq!(route(Some("garbage")), Route::BadRequest);
        assert_eq!(route(None), Route::BadRequest);
    }

    #[test]
    fn renders_numbers_only() {
        let s = render(&[
            ("Binlog_commits".into(), "42".into()),
            ("Binlog_group_commit_avg_size".into(), "1.50".into()),
            ("Some_text".into(), "ON".into()),
        ]);
        assert!(s.contains("binlogd_global_status_binlog_commits 42\n"), "{s}");
        assert!(s.contains("binlogd_global_status_binlog_group_commit_avg_size 1.5\n"), "{s}");
        assert!(!s.contains("some_text"), "{s}");
    }
}
