// A promptfoo custom provider that runs `glossa translate -q` on the
// prompt (one post) and returns the translation (docs/telemetry.md).
// promptfoo hands each test case's trace context to the provider as
// `context.traceparent`; glossa reads it from TRACEPARENT, so its spans
// (`glossa translate`, `post`, `retrieve`, `generate`, `check`) land in
// that test case's trace, under promptfoo's span.
//
// Settings (environment):
//   GLOSSA_BIN          the glossa executable (default: `glossa` on PATH)
//   GLOSSA_OTLP         where glossa sends its spans: promptfoo's receiver
//                       (default http://127.0.0.1:4318, as in the config)
// `config.args` in promptfooconfig.yaml adds glossa arguments after
// `translate -q` (e.g. [--provider, openai, --model, gpt-4o-mini]).
const { execFile } = require('node:child_process');

class GlossaProvider {
  constructor(options = {}) {
    this.config = options.config || {};
    this.providerId = options.id || 'glossa';
  }

  id() {
    return this.providerId;
  }

  async callApi(prompt, context) {
    const bin = process.env.GLOSSA_BIN || 'glossa';
    const otlp = process.env.GLOSSA_OTLP || 'http://127.0.0.1:4318';
    // `--`: a post that starts with `-` is text, not a flag.
    const args = ['--otlp', otlp, 'translate', '-q', ...(this.config.args || []), '--', prompt];
    const env = { ...process.env };
    if (context && context.traceparent) {
      env.TRACEPARENT = context.traceparent;
    } else {
      delete env.TRACEPARENT;
    }
    return new Promise((resolve) => {
      execFile(bin, args, { env, timeout: 120000 }, (error, stdout, stderr) => {
        if (error) {
          resolve({ error: `${bin} translate failed: ${stderr.trim() || error.message}` });
        } else {
          resolve({ output: stdout.trim() });
        }
      });
    });
  }
}

module.exports = GlossaProvider;
