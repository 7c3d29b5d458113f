import { MigrationClass } from '@app/shared-kernel';
import { WebhookEndpoints1763809000000 } from './1763809000000-webhook-endpoints';

/**
 * The webhook endpoints' and deliveries' tables.
 * A new migration of this context goes in this folder and is appended here; never edited after landing.
 */
export const webhooksMigrations: readonly MigrationClass[] = [WebhookEndpoints1763809000000];
