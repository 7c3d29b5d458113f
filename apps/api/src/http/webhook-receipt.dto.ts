import { ApiProperty } from './api-property';

/** What a provider webhook answers once its signature verified and its event was taken. */
export class WebhookReceiptDto {
  @ApiProperty({ example: true }) received!: boolean;
  @ApiProperty({ example: false, description: 'True when this event was delivered before: nothing changed.' })
  duplicate!: boolean;
}
