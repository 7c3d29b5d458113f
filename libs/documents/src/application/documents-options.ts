/** What the documents context takes from the application's configuration. */
export abstract class DocumentsOptions {
  /** PDF_PREVIEW_RATE_LIMIT_PER_MINUTE: previews per organization per minute; 0 turns the limit off. */
  abstract readonly previewRateLimitPerMinute: number;
}
