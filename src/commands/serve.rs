//! `glossa serve`: the web page and its JSON API (see `glossa::serve`).

use crate::cli::ServeArgs;
use anyhow::Context as _;
use glossa::retrieve::{self, Params};
use glossa::serve::store::Store;
use glossa::serve::{self, AppState, ModelSettings, Options};
use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let params = Params::from(&args.params);
    // Check the retriever spec now, not on the first request.
    let demo = Arc::new(super::load_glossary(std::path::Path::new(
        crate::cli::DEMO_GLOSSARY,
    ))?);
    let retriever = retrieve::build(&args.retriever, &demo, &params)?;
    super::note_missing_data([args.retriever.as_str()]);
    retrieve::refuse_without_labels(retriever.as_ref(), &args.retriever)?;
    let timeout = Duration::try_from_secs_f64(args.timeout)
        .context("--timeout must be a positive number of seconds")?;
    let body_timeout = match args.body_timeout {
        None => serve::conn::BODY_TIMEOUT,
        Some(secs) => Duration::try_from_secs_f64(secs)
            .context("--body-timeout must be a positive number of seconds")?,
    };
    let providers = offered_providers(&args, timeout);
    let offered: Vec<String> = providers.iter().map(|p| p.name.clone()).collect();
    check_folder(&args.glossaries);

    super::runtime()?.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&args.addr)
            .await
            .with_context(|| format!("cannot listen on {}", args.addr))?;
        let addr = listener.local_addr().context("cannot read the listening address")?;
        let state = AppState::new(Options {
            glossaries: args.glossaries.clone(),
            retriever: args.retriever.clone(),
            params,
            providers,
            log: !args.quiet,
            hosts: serve::Hosts::new(addr.ip(), args.allow_hosts.clone()),
            header_timeout: serve::HEADER_TIMEOUT,
            body_timeout,
            connection_deadline: serve::conn::CONNECTION_DEADLINE,
            max_connections: serve::conn::max_connections(),
            compiled: super::compiled::mode(args.compiled),
            compiled_cache: args.cache_dir.clone(),
        });
        if !addr.ip().is_loopback() {
            eprintln!(
                "warning: listening on {addr}, beyond this machine: anyone who can reach it can read and change \
                 the glossaries in {} and use the model keys of this server. Use --addr 127.0.0.1:PORT unless you mean it.",
                args.glossaries.display()
            );
        }
        let shown = if addr.ip().is_unspecified() {
            format!("http://127.0.0.1:{}/", addr.port())
        } else {
            format!("http://{addr}/")
        };
        println!("glossa serve: open {shown}");
        let _ = std::io::stdout().flush();
        eprintln!(
            "glossaries: {} · retriever: {} · providers: {} · Ctrl-C stops",
            args.glossaries.display(),
            args.retriever,
            offered.join(", ")
        );
        serve::serve_until(listener, state, async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .context("the server stopped")?;
        Ok(ExitCode::SUCCESS)
    })
}

/// The providers the page offers; why others are not, on stderr.
fn offered_providers(args: &ServeArgs, timeout: Duration) -> Vec<serve::ProviderChoice> {
    let (providers, warnings) = serve::providers_from_env(&ModelSettings {
        models: args.models.iter().cloned().collect(),
        base_urls: args.base_urls.iter().cloned().collect(),
        api_key_envs: args.api_key_envs.iter().cloned().collect(),
        cache_dir: (!args.no_cache).then(|| args.cache_dir.clone()),
        timeout: Some(timeout),
        temperature: args.temperature,
        seed: args.seed,
        max_tokens: crate::cli::MaxTokens::settings(args.max_tokens),
    });
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    providers
}

/// Tidy the glossaries folder and say what is wrong with it, on stderr.
fn check_folder(dir: &std::path::Path) {
    let store = Store::new(dir);
    let cleaned = store.clean_temporaries();
    if cleaned > 0 {
        eprintln!(
            "note: removed {cleaned} temporary file(s) left in {} by an interrupted save (the glossaries themselves are whole)",
            dir.display()
        );
    }
    match store.list() {
        Ok(list) if list.is_empty() => eprintln!(
            "note: no glossaries (NAME.json) in {}; pass --glossaries DIR, or run from the folder that holds glossaries/",
            dir.display()
        ),
        Ok(list) => {
            for bad in list.iter().filter(|s| s.error.is_some()) {
                eprintln!("warning: {}", bad.error.as_deref().unwrap_or_default());
            }
        }
        Err(e) => eprintln!("warning: {e}"),
    }
}
