// One call through the Prism proxy: records the operation it exercised, its status, and what
// Prism said about it (the sl-violations header).

/**
 * `operation` is "<method> <path template>" as in the document; `params` fill the template.
 * `expect` is the status (or statuses) the crawl means to provoke: any other is reported, since
 * the crawl then did not test what it says it tests.
 */
function client(base, report) {
  return async function call(operation, { params = {}, query, body, token, headers = {}, expect = 200 } = {}) {
    const [method, template] = operation.split(' ');
    let url = base + template.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(params[name]));
    if (query) url += `?${new URLSearchParams(query)}`;
    const res = await fetch(url, {
      method: method.toUpperCase(),
      headers: {
        ...(token ? { Authorization: token } : {}),
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    const json = /json/.test(res.headers.get('content-type') ?? '') && text ? JSON.parse(text) : undefined;
    report.calls.push({ operation, status: res.status });

    const expected = [expect].flat();
    if (!expected.includes(res.status))
      report.unexpected.push(`${operation} (${url}): expected ${expected.join(' or ')}, got ${res.status} ${text.slice(0, 300)}`);
    const violations = JSON.parse(res.headers.get('sl-violations') ?? '[]');
    for (const v of violations) {
      const where = `${operation} ${res.status}: ${v.message} [${v.location.join('.')}]`;
      // A request the crawl makes invalid on purpose (a 4xx case) carries request violations.
      if (v.location[0] === 'response') report.responseViolations.push(where);
      else if (res.status < 300) report.responseViolations.push(`request the document should accept: ${where}`);
    }
    return { status: res.status, body: json, headers: res.headers };
  };
}

/** Polls `read` until `done(value)` or 15 s have passed. */
async function until(read, done, what) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

module.exports = { client, until };
