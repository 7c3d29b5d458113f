import { EVENT_TYPES } from '@app/shared-kernel';
import { webhookEndpointResponse, WebhookDeliveryView, WebhookEndpointView } from '@app/webhooks';
import { IsArray, IsIn, IsObject, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '../http/api-property';
import { iso } from '../http/iso-date';
import { ListQueryDto, PaginationDto } from '../http/list-query.dto';

const ENDPOINT_ID = '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6e01';
const EVENT_ID = '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6e02';
const ENABLED_EVENTS_DESCRIPTION =
  `1–100 entries, each "*" (every type), a type of the catalog or "prefix.*" of whole segments (e.g. "wallet.*", ` +
  `"wallet.hold.*"); anything else is refused (400 VALIDATION_ERROR). Types: ${EVENT_TYPES.join(', ')}.`;
const URL_DESCRIPTION =
  'Where events are POSTed. In production https only, and a host resolving to a loopback, private, link-local, ' +
  'unique-local or cloud-metadata address is refused (400 WEBHOOK_URL_NOT_ALLOWED), here and again at every delivery. ' +
  'In development http and loopback are allowed.';

export class CreateWebhookEndpointDto {
  @ApiProperty({ example: 'https://hooks.example.com/billing', description: URL_DESCRIPTION, maxLength: 2048 })
  @IsString()
  url!: string;

  @ApiProperty({ example: ['wallet.*', 'customer.created'], description: ENABLED_EVENTS_DESCRIPTION, type: [String] })
  @IsArray()
  enabled_events!: unknown[];

  @ApiPropertyOptional({ example: 'Ledger sync', maxLength: 500 })
  @IsOptional()
  @IsString()
  description?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, example: { team: 'finance' } })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}

export class UpdateWebhookEndpointDto {
  @ApiPropertyOptional({ example: 'https://hooks.example.com/billing-v2', description: URL_DESCRIPTION, maxLength: 2048 })
  @IsOptional()
  @IsString()
  url?: string;

  @ApiPropertyOptional({ example: ['*'], description: ENABLED_EVENTS_DESCRIPTION, type: [String] })
  @IsOptional()
  @IsArray()
  enabled_events?: unknown[];

  @ApiPropertyOptional({ example: 'Ledger sync (v2)', maxLength: 500, description: 'An empty string clears it.' })
  @IsOptional()
  @IsString()
  description?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, example: { team: 'finance' } })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({
    enum: ['enabled', 'disabled'],
    example: 'enabled',
    description: 'disabled: no delivery is attempted (pending ones fail); enabled again: the failure streak starts afresh.',
  })
  @IsOptional()
  @IsIn(['enabled', 'disabled'])
  status?: 'enabled' | 'disabled';
}

export class WebhookEndpointDto {
  @ApiProperty({ example: ENDPOINT_ID }) id!: string;
  @ApiProperty({ example: 'webhook_endpoint' }) object!: 'webhook_endpoint';
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d01' }) workspace_id!: string;
  @ApiProperty({ example: 'https://hooks.example.com/billing' }) url!: string;
  @ApiProperty({ type: String, nullable: true, example: 'Ledger sync' }) description!: string | null;
  @ApiProperty({ example: ['wallet.*', 'customer.created'], type: [String] }) enabled_events!: string[];
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { team: 'finance' } })
  metadata!: Record<string, string>;
  @ApiProperty({ enum: ['enabled', 'disabled'], example: 'enabled' }) status!: 'enabled' | 'disabled';
  @ApiProperty({
    type: String,
    enum: ['manual', 'failing'],
    nullable: true,
    example: null,
    description: 'failing: disabled automatically after 3 days in which every delivery failed.',
  })
  disabled_reason!: 'manual' | 'failing' | null;
  @ApiProperty({ type: String, nullable: true, example: null }) disabled_at!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'After a rotation: until when the previous secret still signs beside the current one (24 hours).',
  })
  previous_secret_expires_at!: string | null;
  @ApiProperty({ example: '2026-11-22T10:15:30.000Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T10:15:30.000Z' }) updated_at!: string;
}

export class WebhookEndpointWithSecretDto extends WebhookEndpointDto {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'The signing secret, shown once, in this response only: `whsec_` + base64 of 32 random bytes.',
  })
  secret!: string;
}

export class WebhookEndpointListDto {
  @ApiProperty({ type: [WebhookEndpointDto] }) data!: WebhookEndpointDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

export class ListWebhookDeliveriesQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ example: EVENT_ID, description: 'Only this event’s deliveries.' })
  @IsOptional()
  @IsUUID()
  event_id?: string;

  @ApiPropertyOptional({ enum: ['pending', 'succeeded', 'failed'], example: 'failed' })
  @IsOptional()
  @IsIn(['pending', 'succeeded', 'failed'])
  status?: 'pending' | 'succeeded' | 'failed';
}

export class RedeliverEventDto {
  @ApiProperty({ example: ENDPOINT_ID, description: 'An endpoint of the event’s workspace; its event filters do not apply.' })
  @IsString()
  @MaxLength(100)
  endpoint_id!: string;
}

export class WebhookDeliveryDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6e03' }) id!: string;
  @ApiProperty({ example: 'webhook_delivery' }) object!: 'webhook_delivery';
  @ApiProperty({ example: ENDPOINT_ID }) endpoint_id!: string;
  @ApiProperty({ example: EVENT_ID, description: 'Also the `webhook-id` header of every attempt.' }) event_id!: string;
  @ApiProperty({ example: 'wallet.transaction.created' }) event_type!: string;
  @ApiProperty({ example: 2, description: 'Attempts made so far (at most 8).' }) attempt!: number;
  @ApiProperty({
    enum: ['pending', 'succeeded', 'failed'],
    example: 'pending',
    description:
      'pending: an attempt is due at next_attempt_at; failed: the eighth attempt failed (or the endpoint is disabled).',
  })
  status!: 'pending' | 'succeeded' | 'failed';
  @ApiProperty({ type: 'integer', nullable: true, example: 503, description: 'The latest attempt’s HTTP status, if any came.' })
  response_status!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 212, description: 'The latest attempt’s duration.' })
  duration_ms!: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'The endpoint answered 503.' }) error!: string | null;
  @ApiProperty({ example: '2026-11-22T10:15:30.000Z' }) created_at!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '2026-11-22T10:20:35.000Z',
    description: 'Retries come about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after the attempts before.',
  })
  next_attempt_at!: string | null;
}

export class WebhookDeliveryListDto {
  @ApiProperty({ type: [WebhookDeliveryDto] }) data!: WebhookDeliveryDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

/** The same mapping as the `data.object` of the endpoint's events (webhookEndpointResponse). */
export function toWebhookEndpointDto(endpoint: WebhookEndpointView): WebhookEndpointDto {
  return webhookEndpointResponse(endpoint);
}

export function toWebhookDeliveryDto(delivery: WebhookDeliveryView): WebhookDeliveryDto {
  return {
    id: delivery.id,
    object: 'webhook_delivery',
    endpoint_id: delivery.endpointId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    attempt: delivery.attempt,
    status: delivery.status,
    response_status: delivery.responseStatus,
    duration_ms: delivery.durationMs,
    error: delivery.error,
    created_at: delivery.createdAt.toISOString(),
    next_attempt_at: iso(delivery.nextAttemptAt),
  };
}
