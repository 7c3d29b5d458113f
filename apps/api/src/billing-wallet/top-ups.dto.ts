import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

export class CreateTopUpDto {
  @ApiPropertyOptional({ enum: ['hosted_checkout', 'off_session'], default: 'hosted_checkout' })
  @IsOptional()
  @IsIn(['hosted_checkout', 'off_session'])
  mode?: string;
  @ApiPropertyOptional({ example: 'pm_…', description: 'Required for off_session: a payment method of the wallet’s customer.' })
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
  @ApiProperty() id!: string;
  @ApiProperty({ example: 'wallet_top_up' }) object!: string;
  @ApiProperty() wallet_id!: string;
  @ApiProperty({ enum: ['hosted_checkout', 'off_session'] }) mode!: string;
  @ApiProperty({ description: 'Started by the low-balance rule.' }) automatic!: boolean;
  @ApiProperty({ example: '50.00' }) amount!: string;
  @ApiProperty({ example: 'EUR' }) currency!: string;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] }) status!: string;
  @ApiProperty({ type: String, nullable: true }) payment_method_id!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Where the customer pays (hosted_checkout).' }) checkout_url!:
    string | null;
  @ApiProperty({ type: String, nullable: true }) failure_code!: string | null;
  @ApiProperty({ type: String, nullable: true }) failure_message!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The credit, once the provider reported success.' }) transaction_id!:
    string | null;
  @ApiProperty() created_at!: string;
  @ApiProperty({ type: String, nullable: true }) completed_at!: string | null;
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
  @ApiProperty() id!: string;
  @ApiProperty({ example: 'payment_method' }) object!: string;
  @ApiProperty() customer_id!: string;
  @ApiProperty({ example: 'sandbox' }) provider!: string;
  @ApiProperty({ example: 'visa' }) brand!: string;
  @ApiProperty({ example: '4242' }) last4!: string;
  @ApiProperty() created_at!: string;
}
