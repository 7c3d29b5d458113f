import type { OpenAPIObject } from '@nestjs/swagger';
import { SYSTEM_TEMPLATE_IDS } from '@app/documents';

type Tag = NonNullable<OpenAPIObject['tags']>[number];

/** Where the conventions of every route are explained (served by swagger-ui.ts). */
export const API_GUIDE_PATH = '/docs/api-guide.md';

/**
 * The tags in the order a newcomer works through them (customers and money first, then the
 * catalog and its publishing flow, documents, and the administration of the organization), each
 * with what it is for and, where ids flow between routes, which id goes where.
 */
export const API_TAGS: Tag[] = [
  {
    name: 'Customers',
    description:
      'Start here: `POST /v1/customers` creates a customer with its primary wallet (`primary_wallet_id`) in its currency.',
  },
  {
    name: 'Wallets',
    description:
      'Prepaid balances on a ledger: credit, debit, holds (reserve, capture, release), transfers. ' +
      'Take the wallet id from the customer’s `primary_wallet_id`. Amounts are decimal strings (`"10.50"`).',
  },
  {
    name: 'Top-ups and payments',
    description:
      'Money in from a payment provider: saved payment methods (sandbox test cards `pm_card_visa`, `pm_card_declined`), ' +
      'hosted-checkout and off-session top-ups, the provider’s signed webhooks and the sandbox test helpers.',
  },
  { name: 'FX rates', description: 'The workspace’s conversion rates, used by transfers between currencies.' },
  {
    name: 'Costs',
    description:
      'The catalog’s inputs: ORG costs (keys every product may use, e.g. `platform_fee`) and PRODUCT costs; ' +
      'a product’s `price_expression` is a formula over their keys.',
  },
  {
    name: 'Products',
    description:
      'Versioned products. Edits are staged in a working draft and go live when it is published: ' +
      'a product created with a `price_expression` has its draft open (`draft_version.id` of the answer); ' +
      'otherwise open one with `POST /v1/products/{id}/draft` (its `id`). Publish it with `POST /v1/changes` (Changes).',
  },
  {
    name: 'Plans',
    description:
      'Versioned plans of products, with allowances and quantity bands. `POST /v1/plans` answers with its working draft open ' +
      '(`draft_version.id`); add products with `POST /v1/plans/{id}/products`, then publish with `POST /v1/changes`. ' +
      'Listing filters, searches and sorts; migrations move subscriptions between versions.',
  },
  {
    name: 'Changes',
    description:
      'Publishing: `POST /v1/changes` with `subject_kind` (`product` or `plan`), `subject_id` (the product’s or plan’s `id`) ' +
      'and `staged_version_id` (its `draft_version.id`, or the `id` of `GET /v1/products/{id}/draft` / `GET /v1/plans/{id}/draft`); ' +
      'omit `scheduled_for` to publish now. A product going live cascades into the plans tracking it.',
  },
  { name: 'Subscriptions', description: 'A customer subscribed to a live version of a plan (publish the plan first).' },
  {
    name: 'Document templates',
    description:
      'Invoice, credit note, quote and e-mail layouts, PDF previews and SVG thumbnails. The system templates have stable ids ' +
      `(invoice \`${SYSTEM_TEMPLATE_IDS.invoice}\`, credit note \`${SYSTEM_TEMPLATE_IDS.credit_note}\`, ` +
      `quote \`${SYSTEM_TEMPLATE_IDS.quote}\`): preview, thumbnail or copy them.`,
  },
  { name: 'Customer verifications', description: 'Identity checks of customers by a verification provider, and their webhooks.' },
  {
    name: 'API keys',
    description:
      'Keys of the organization: `sk_live_…` for the live workspace, `sk_test_…` for the sandbox; the secret is shown once.',
  },
  { name: 'Workspaces', description: 'The organization’s live and sandbox workspaces (select one with `X-Workspace-Id`).' },
  { name: 'Users', description: 'People of the organization and their roles.' },
  { name: 'Sessions and permissions', description: 'Signing in as a user (a session token) and the catalog of scopes.' },
  {
    name: 'Approvals',
    description: 'Requests held for a second person (e.g. a wallet adjustment), approved or rejected by a human session.',
  },
  { name: 'Audit log', description: 'Who did what, where and when.' },
  {
    name: 'Webhook endpoints',
    description:
      'Where events are sent: your HTTPS URLs, the event types each receives (`*`, a type, or `prefix.*`), and the deliveries ' +
      'made to each. Deliveries are signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`) ' +
      'with the endpoint’s secret (`whsec_…`, shown once at create and rotation); verify them with the `standardwebhooks` library.',
  },
  {
    name: 'Events',
    description:
      'One event per committed state change, in the workspace where it happened, kept 30 days: `data.object` is the ' +
      'resource as its GET answered it then, `sequence` increases per workspace in commit order. Read scope `events:read`.',
  },
  { name: 'Health', description: 'Liveness and readiness probes for orchestrators (no authentication).' },
];

/** The workflow's tags first, in order; a tag no one described yet follows, sorted. */
export function orderTags(document: OpenAPIObject): OpenAPIObject {
  const used = new Set<string>();
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item as Record<string, { tags?: unknown }>)) {
      if (operation && Array.isArray(operation.tags)) for (const tag of operation.tags) used.add(String(tag));
    }
  }
  const described = API_TAGS.filter((tag) => used.has(tag.name));
  const others = [...used].filter((name) => !API_TAGS.some((tag) => tag.name === name)).sort();
  document.tags = [...described, ...others.map((name) => ({ name }))];
  return document;
}
