//! A stand-in OpenAI-compatible chat-completions server for benchmarks:
//! answers every POST after a fixed delay with the text after "English
//! text:" in the prompt. Loopback only.
//!
//!   cargo run --release --example mock_openai -- 127.0.0.1:8089 100
//!   (address, delay in milliseconds; prints "listening on ADDR" when ready)

use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:8089".to_string());
    let delay = Duration::from_millis(args.next().and_then(|d| d.parse().ok()).unwrap_or(100));
    let listener = TcpListener::bind(&addr).await.expect("bind");
    println!("listening on {}", listener.local_addr().expect("address"));
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        tokio::spawn(serve(stream, delay));
    }
}

/// Serve requests on one keep-alive connection until the client closes it.
async fn serve(mut stream: TcpStream, delay: Duration) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let head_end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        while buf.len() < head_end + length {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        let body: serde_json::Value =
            serde_json::from_slice(&buf[head_end..head_end + length]).unwrap_or_default();
        buf.drain(..head_end + length);
        let prompt = body["messages"][0]["content"].as_str().unwrap_or("");
        let text = prompt
            .split_once("English text:")
            .map(|(_, rest)| {
                rest.split("\n\n")
                    .find(|s| !s.trim().is_empty())
                    .unwrap_or("")
                    .trim()
            })
            .unwrap_or("");
        tokio::time::sleep(delay).await;
        let reply = serde_json::json!({
            "id": "mock", "object": "chat.completion", "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}]
        })
        .to_string();
        let response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{reply}",
            reply.len()
        );
        if stream.write_all(response.as_bytes()).await.is_err() {
            return;
        }
    }
}
