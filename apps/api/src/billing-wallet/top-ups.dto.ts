import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '../http/api-property';

export class CreateTopUpDto {
  @ApiPropertyOptional({ enum: ['hosted_checkout', 'off_session'], default: 'hosted_checkout', example: 'off_session' })
  @IsOptional()
  @IsIn(['hosted_checkout', 'off_session'])
  mode?: string;
  @ApiPropertyOptional({
    example: 'pm_5f1c9e2a7b3d4c6e8f0a1b2c_card_visa',
    description: 'Required for off_session: a payment method of the wallet’s customer.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  payment_method_id?: string;
  @ApiPropertyOptional({ example: '50.00', description: 'Defaults to the wallet’s auto_topup_amount.' })
  @IsOptional()
  @IsString()
  amount?: string;
}

export class TopUpDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d0e' }) id!: string;
  @ApiProperty({ example: 'wallet_top_up' }) object!: string;
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07' }) wallet_id!: string;
  @ApiProperty({ enum: ['hosted_checkout', 'off_session'], example: 'hosted_checkout' }) mode!: string;
  @ApiProperty({ example: false, description: 'Started by the low-balance rule.' }) automatic!: boolean;
  @ApiProperty({ example: '50.00' }) amount!: string;
  @ApiProperty({ example: 'EUR' }) currency!: string;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'], example: 'succeeded' }) status!: string;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'The card charged (off_session).' })
  payment_method_id!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example:
      'https://checkout.sandbox.invalid/pay/cs_sandbox_9b2e4f6a8c0d1e3f5a7b9c2d?top_up=0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d0e',
    description: 'Where the customer pays (hosted_checkout).',
  })
  checkout_url!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Set when failed, e.g. card_declined.' })
  failure_code!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Set when failed, e.g. "Your card was declined."' })
  failure_message!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d0f',
    description: 'The credit, once the provider reported success.',
  })
  transaction_id!: string | null;
  @ApiProperty({ example: '2026-11-22T15:20:00.000Z' }) created_at!: string;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-22T15:22:41.000Z' }) completed_at!: string | null;
}

export class AttachPaymentMethodDto {
  @ApiProperty({
    example: 'pm_card_visa',
    description: 'A provider token; sandbox: pm_card_visa, pm_card_mastercard, pm_card_declined.',
  })
  @IsString()
  @MaxLength(255)
  token!: string;
}

export class PaymentMethodDto {
  @ApiProperty({ example: 'pm_5f1c9e2a7b3d4c6e8f0a1b2c_card_visa' }) id!: string;
  @ApiProperty({ example: 'payment_method' }) object!: string;
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d04' }) customer_id!: string;
  @ApiProperty({ example: 'sandbox' }) provider!: string;
  @ApiProperty({ example: 'visa' }) brand!: string;
  @ApiProperty({ example: '4242', pattern: '^\\d{4}$' }) last4!: string;
  @ApiProperty({ example: '2026-11-22T10:20:00.000Z' }) created_at!: string;
}
