/* eslint-disable @typescript-eslint/no-explicit-any -- page code reads Swagger UI's untyped objects */

/**
 * What /docs adds to Swagger UI so that an example executes as shown, twice in a row and a year
 * from now. It runs in the page, not in Node: `billingDocsPage.toString()` is inlined into the
 * HTML (customJsStr), so the function uses nothing from outside its own body.
 *
 * - Idempotency-Key: the field shows the documented example; on every Execute that example (or
 *   nothing) is replaced by a fresh UUID (requestInterceptor), so a second click is a second
 *   request, not a replay. A key typed by hand is sent as typed.
 * - Body fields that must be unique (external_id, reference, key) still holding a documented
 *   example get a random suffix; timestamps still holding a documented example (expires_at,
 *   scheduled_for, scheduled_at, effective_at) become tomorrow. Edited values are sent as typed.
 * - Binary answers: a PDF gets a download link of the bytes received (a Blob), an SVG is shown as
 *   an image, both through Swagger UI's own plugin API (wrapComponents of responseBody).
 */
export function billingDocsPage(): void {
  const UNIQUE_FIELDS = ['external_id', 'reference', 'key'];
  const FUTURE_FIELDS = ['expires_at', 'scheduled_for', 'scheduled_at', 'effective_at'];
  const IDEMPOTENCY_KEY = 'Idempotency-Key';
  let documented: Map<string, Set<unknown>> | undefined;

  /** A version 4 UUID from getRandomValues (crypto.randomUUID exists only on https or localhost pages). */
  const uuid = (): string => {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };

  /**
   * Every value the document shows as an example of the fields above (property examples and
   * whole-body examples), and of the Idempotency-Key header.
   */
  function documentedExamples(): Map<string, Set<unknown>> {
    const found = new Map<string, Set<unknown>>(
      [...UNIQUE_FIELDS, ...FUTURE_FIELDS, IDEMPOTENCY_KEY].map((field) => [field, new Set()]),
    );
    const visit = (node: any, inExample: boolean): void => {
      if (node === null || typeof node !== 'object') return;
      if (node.in === 'header' && node.name === IDEMPOTENCY_KEY)
        found.get(IDEMPOTENCY_KEY)!.add(node.example ?? node.schema?.example);
      for (const [name, child] of Object.entries<any>(node)) {
        if (inExample && found.has(name) && typeof child === 'string') found.get(name)!.add(child);
        if (name === 'properties' && child && typeof child === 'object') {
          for (const [field, schema] of Object.entries<any>(child)) {
            if (found.has(field) && schema && typeof schema.example === 'string') found.get(field)!.add(schema.example);
          }
        }
        visit(child, inExample || name === 'example' || name === 'examples');
      }
    };
    visit((globalThis as any).ui.specSelectors.specJson().toJS(), false);
    return found;
  }

  function freshBody(text: string): string {
    documented ??= documentedExamples();
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      return text;
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return text;
    const suffix = Math.random().toString(36).slice(2, 8);
    // eslint-disable-next-line no-restricted-properties -- the browser's clock: a date the reader's request needs, not the server's now
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    for (const field of UNIQUE_FIELDS) {
      if (documented.get(field)!.has(body[field])) body[field] = `${body[field]}_${suffix}`;
    }
    for (const field of FUTURE_FIELDS) {
      if (documented.get(field)!.has(body[field])) body[field] = tomorrow;
    }
    return JSON.stringify(body, null, 2);
  }

  function requestInterceptor(request: any): any {
    documented ??= documentedExamples();
    const headers = request.headers ?? {};
    const name = Object.keys(headers).find((header) => header.toLowerCase() === IDEMPOTENCY_KEY.toLowerCase());
    if (name !== undefined && (headers[name] === '' || documented.get(IDEMPOTENCY_KEY)!.has(headers[name])))
      headers[name] = uuid();
    if (typeof request.body === 'string' && request.method !== 'GET') request.body = freshBody(request.body);
    return request;
  }

  const objectUrls = new WeakMap<object, string>();
  const objectUrl = (blob: Blob): string => {
    let url = objectUrls.get(blob);
    if (url === undefined) {
      url = URL.createObjectURL(blob);
      objectUrls.set(blob, url);
    }
    return url;
  };
  const svgBlobs = new Map<string, Blob>();

  function plugin(system: any): any {
    const h = system.React.createElement;
    return {
      wrapComponents: {
        responseBody: (Original: any) => (props: any) => {
          const type = String(props.contentType ?? '');
          if (/^application\/pdf/i.test(type) && props.content instanceof Blob) {
            const href = objectUrl(props.content);
            return h(
              'div',
              { className: 'billing-binary-body' },
              h(
                'a',
                { href, download: 'preview.pdf', className: 'billing-pdf-download' },
                `Download preview.pdf (${props.content.size} bytes)`,
              ),
              ' · ',
              h('a', { href, target: '_blank', rel: 'noopener' }, 'Open in a new tab'),
            );
          }
          if (/^image\/svg\+xml/i.test(type) && typeof props.content === 'string') {
            let blob = svgBlobs.get(props.content);
            if (blob === undefined) {
              blob = new Blob([props.content], { type: 'image/svg+xml' });
              svgBlobs.set(props.content, blob);
            }
            return h('img', {
              src: objectUrl(blob),
              alt: 'Thumbnail',
              className: 'billing-svg-image',
              style: { maxWidth: '100%', border: '1px solid #ddd' },
            });
          }
          return h(Original, props);
        },
      },
    };
  }

  (globalThis as any).billingDocs = { requestInterceptor, plugin };
}
