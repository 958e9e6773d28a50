//! OTLP export of glossa's spans (docs/telemetry.md): off unless `--otlp
//! URL` or the standard `OTEL_EXPORTER_OTLP_*` variables say where, so the
//! default run needs no collector. Spans are batched and sent over
//! OTLP/HTTP (protobuf) from a thread of the SDK's own; [`Exporter::finish`]
//! sends what is left before the process exits. A collector that cannot be
//! reached costs a warning, never the run.

use opentelemetry::KeyValue;
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use std::collections::HashMap;
use std::time::Duration;

/// How long one export may take before it is given up (the OTLP default).
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// Where spans go and what they may carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtlpConfig {
    /// The full URL spans are POSTed to (`.../v1/traces`).
    pub(crate) traces_url: String,
    /// Extra request headers (`OTEL_EXPORTER_OTLP_HEADERS`: an API key of
    /// a hosted collector); never printed.
    pub(crate) headers: Vec<(String, String)>,
    /// `service.name` (`OTEL_SERVICE_NAME`, default `glossa`).
    pub(crate) service: String,
    /// Attach post, prompt and reply texts (`--otlp-text`).
    pub(crate) include_text: bool,
}

/// Settings that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    #[error("{var}={value}: glossa sends OTLP over HTTP (protobuf), not {value}; unset it or set http/protobuf")]
    Protocol { var: &'static str, value: String },
    #[error("OTLP endpoint `{0}` is not an http:// or https:// URL")]
    Endpoint(String),
    #[error("OTLP exporter: {0}")]
    Exporter(String),
    #[error("OTLP export to {url} failed: {detail}; the spans of this invocation are lost (the run itself is unaffected)")]
    Export { url: String, detail: String },
}

impl OtlpConfig {
    /// The export settings, if any: `flag` (`--otlp URL`, a collector's
    /// base URL like the generic variable) wins over
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as it is), which wins over
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces` appended).
    /// `OTEL_SDK_DISABLED=true` turns export off. `var` reads the
    /// environment (the binary passes `std::env::var`).
    pub fn resolve(
        flag: Option<&str>,
        include_text: bool,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<OtlpConfig>, TelemetryError> {
        let set = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        if flag.is_none() && set("OTEL_SDK_DISABLED").is_some_and(|v| v.trim() == "true") {
            return Ok(None);
        }
        let base = |url: &str| {
            let url = url.trim().trim_end_matches('/');
            if url.ends_with("/v1/traces") {
                url.to_string()
            } else {
                format!("{url}/v1/traces")
            }
        };
        let traces_url = match (
            flag,
            set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
            set("OTEL_EXPORTER_OTLP_ENDPOINT"),
        ) {
            (Some(url), _, _) => base(url),
            (None, Some(url), _) => url.trim().to_string(),
            (None, None, Some(url)) => base(&url),
            (None, None, None) => return Ok(None),
        };
        if !(traces_url.starts_with("http://") || traces_url.starts_with("https://")) {
            return Err(TelemetryError::Endpoint(traces_url));
        }
        let protocol = [
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
            "OTEL_EXPORTER_OTLP_PROTOCOL",
        ]
        .into_iter()
        .find_map(|var| set(var).map(|value| (var, value)));
        if let Some((var, value)) = protocol.filter(|(_, v)| v.trim() != "http/protobuf") {
            return Err(TelemetryError::Protocol { var, value });
        }
        let headers = set("OTEL_EXPORTER_OTLP_TRACES_HEADERS")
            .or_else(|| set("OTEL_EXPORTER_OTLP_HEADERS"))
            .map(|h| parse_headers(&h))
            .unwrap_or_default();
        Ok(Some(OtlpConfig {
            traces_url,
            headers,
            service: set("OTEL_SERVICE_NAME").unwrap_or_else(|| "glossa".to_string()),
            include_text,
        }))
    }
}

/// `key1=value1,key2=value2`, values percent-decoded (the OTLP exporter
/// specification's format).
fn parse_headers(text: &str) -> Vec<(String, String)> {
    text.split(',')
        .filter_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            let k = k.trim();
            (!k.is_empty()).then(|| {
                let v = percent_encoding::percent_decode_str(v.trim()).decode_utf8_lossy();
                (k.to_string(), v.into_owned())
            })
        })
        .collect()
}

/// The installed exporter: the global tracer provider until [`finish`].
///
/// [`finish`]: Exporter::finish
pub struct Exporter {
    provider: SdkTracerProvider,
    url: String,
}

/// Install the OTLP exporter as the global tracer provider and turn on
/// span building ([`crate::otel::enable`]).
pub fn start(config: &OtlpConfig) -> Result<Exporter, TelemetryError> {
    // reqwest is built without a default TLS backend: an https collector
    // needs ring installed (an error only means it already is).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let headers: HashMap<String, String> = config.headers.iter().cloned().collect();
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(config.traces_url.clone())
        .with_timeout(EXPORT_TIMEOUT)
        .with_headers(headers)
        .build()
        .map_err(|e| TelemetryError::Exporter(e.to_string()))?;
    let resource = Resource::builder()
        .with_service_name(config.service.clone())
        .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
        .build();
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource)
        .build();
    opentelemetry::global::set_tracer_provider(provider.clone());
    crate::otel::enable(config.include_text);
    Ok(Exporter {
        provider,
        url: config.traces_url.clone(),
    })
}

impl Exporter {
    /// Send every span still queued and stop the exporter's thread.
    pub fn finish(self) -> Result<(), TelemetryError> {
        let failed = |e: opentelemetry_sdk::error::OTelSdkError| TelemetryError::Export {
            url: self.url.clone(),
            detail: e.to_string(),
        };
        let flushed = self.provider.force_flush().map_err(failed);
        let _ = self.provider.shutdown();
        flushed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(
        flag: Option<&str>,
        vars: &[(&str, &str)],
    ) -> Result<Option<OtlpConfig>, TelemetryError> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        OtlpConfig::resolve(flag, false, |name| vars.get(name).cloned())
    }

    fn url(flag: Option<&str>, vars: &[(&str, &str)]) -> Option<String> {
        resolve(flag, vars).unwrap().map(|c| c.traces_url)
    }

    #[test]
    fn off_unless_an_endpoint_is_set() {
        assert_eq!(url(None, &[]), None);
        assert_eq!(
            url(
                None,
                &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:6006")]
            ),
            Some("http://127.0.0.1:6006/v1/traces".into())
        );
        assert_eq!(
            url(
                None,
                &[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://h:4318/custom")]
            ),
            Some("http://h:4318/custom".into())
        );
        assert_eq!(
            url(
                Some("http://127.0.0.1:4318/"),
                &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://x")]
            ),
            Some("http://127.0.0.1:4318/v1/traces".into())
        );
        assert_eq!(
            url(
                None,
                &[
                    ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://x"),
                    ("OTEL_SDK_DISABLED", "true")
                ]
            ),
            None
        );
    }

    #[test]
    fn grpc_and_non_urls_are_refused_with_the_reason() {
        let grpc = resolve(
            None,
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://x:4317"),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ],
        );
        assert!(matches!(grpc, Err(TelemetryError::Protocol { .. })));
        assert!(matches!(
            resolve(Some("localhost:4318"), &[]),
            Err(TelemetryError::Endpoint(_))
        ));
    }

    #[test]
    fn headers_are_split_and_percent_decoded() {
        assert_eq!(
            parse_headers("api_key=a%3Db, x-team = glossa ,=nothing"),
            vec![
                ("api_key".to_string(), "a=b".to_string()),
                ("x-team".to_string(), "glossa".to_string())
            ]
        );
    }
}
