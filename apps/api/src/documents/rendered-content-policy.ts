/**
 * The Content-Security-Policy of what the API renders for a browser (the HTML preview, the SVG
 * thumbnail): text a tenant wrote is in them, escaped, and the policy keeps it inert should an
 * escape ever be missed. They need nothing but their own inline styles and data: images (the
 * logo); no script, font, frame, form or fetch, and no base URL to rewrite.
 */
export const RENDERED_CONTENT_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

export const RENDERED_CONTENT_POLICY_HEADER = {
  'Content-Security-Policy': {
    description: 'Nothing but inline styles and data: images may load or run in the rendered document.',
    schema: { type: 'string', example: RENDERED_CONTENT_POLICY },
  },
};
