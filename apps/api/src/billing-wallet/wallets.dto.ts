import { MAX_BATCH_DEBITS, SOURCES } from '@app/billing-wallet';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { ErrorDetailDto } from '../http/error-body.dto';
import { ListQueryDto, PaginationDto } from '../http/list-query.dto';
import { PrincipalRefDto } from '../http/principal-ref.dto';
import { IsTimestamp } from '../http/timestamp';
import { ApiProperty, ApiPropertyOptional } from '../http/api-property';

const AMOUNT = {
  type: String,
  example: '25.00',
  description: 'Decimal string in major units, at most the currency’s minor-unit precision.',
};

class WalletSettingsDto {
  @ApiPropertyOptional({ ...AMOUNT, example: '50.00', nullable: true, description: 'How far below zero spending may go.' })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  credit_limit?: string | null;
  @ApiPropertyOptional({ ...AMOUNT, example: '10000.00', nullable: true })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  max_balance?: string | null;
  @ApiPropertyOptional({ ...AMOUNT, example: '2500.00', nullable: true })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  max_single_credit?: string | null;
  @ApiPropertyOptional({ ...AMOUNT, example: '20.00', nullable: true })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  low_balance_threshold?: string | null;
  @ApiPropertyOptional({ example: true }) @IsOptional() @IsBoolean() auto_topup_enabled?: boolean;
  @ApiPropertyOptional({ ...AMOUNT, example: '50.00', nullable: true })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  auto_topup_amount?: string | null;
}

export class CreateWalletDto extends WalletSettingsDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d04' }) @IsUUID() customer_id!: string;
  @ApiProperty({ example: 'EUR' }) @IsString() currency!: string;
}

export class UpdateWalletDto extends WalletSettingsDto {
  @ApiPropertyOptional({ example: 'EUR', description: 'Echo-guard: must equal the wallet’s currency when sent.' })
  @IsOptional()
  @IsString()
  currency?: string;
  @ApiPropertyOptional({ type: String, example: 'pm_5f1c9e2a7b3d4c6e8f0a1b2c_card_visa', nullable: true })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @MaxLength(255)
  auto_topup_payment_method_id?: string | null;
}

export class MoneyOperationDto {
  @ApiProperty(AMOUNT) @IsString() amount!: string;
  @ApiPropertyOptional({ enum: SOURCES, example: 'INVOICE' }) @IsOptional() @IsIn(SOURCES) source?: string;
  @ApiPropertyOptional({ example: 'EUR', description: 'Echo-guard: must equal the wallet’s currency when sent.' })
  @IsOptional()
  @IsString()
  currency?: string;
  @ApiPropertyOptional({ example: 'Invoice INV-42' }) @IsOptional() @IsString() @MaxLength(500) reason?: string;
  @ApiPropertyOptional({
    example: 'inv_42',
    description: 'A repeated (source, reference) on this wallet is an idempotent replay.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  reference?: string;
}

export class CreditDto extends MoneyOperationDto {
  @ApiPropertyOptional({ enum: SOURCES, example: 'PROMOTION' }) declare source?: string;
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    example: '2027-01-01T00:00:00Z',
    nullable: true,
    description: 'PROMOTION credits only; null never expires.',
  })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsTimestamp()
  expires_at?: Date | null;
}

export class AdjustDto extends MoneyOperationDto {
  @ApiProperty({ example: '-5.00', description: 'Signed decimal string.' }) @IsString() declare amount: string;
  @ApiPropertyOptional({ enum: SOURCES, example: 'MANUAL' }) declare source?: string;
}

const toBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);
const toList = ({ value }: { value: unknown }) =>
  (Array.isArray(value) ? value : [value])
    .flatMap((item) => String(item).split(','))
    .map((item) => item.trim())
    .filter(Boolean);

export class ListWalletsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d04' }) @IsOptional() @IsUUID() customer_id?: string;
  @ApiPropertyOptional({ description: 'Repeatable or comma-separated; OR within.', example: 'EUR,USD' })
  @IsOptional()
  @Transform(toList)
  @IsString({ each: true })
  currency?: string[];
  @ApiPropertyOptional({ example: true }) @IsOptional() @Transform(toBoolean) @IsBoolean() is_primary?: boolean;
  @ApiPropertyOptional({ example: true }) @IsOptional() @Transform(toBoolean) @IsBoolean() auto_topup_enabled?: boolean;
  @ApiPropertyOptional({ example: '2026-11-01T00:00:00Z', description: 'created_at ≥ this' })
  @IsOptional()
  @IsTimestamp()
  created_after?: Date;
  @ApiPropertyOptional({ example: '2026-12-01T00:00:00Z', description: 'created_at < this' })
  @IsOptional()
  @IsTimestamp()
  created_before?: Date;
}

export class WalletDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07' }) id!: string;
  @ApiProperty({ example: 'wallet' }) object!: string;
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d04' }) customer_id!: string;
  @ApiProperty({ example: 'EUR' }) currency!: string;
  @ApiProperty({ example: true }) is_primary!: boolean;
  @ApiProperty({ example: '100.00' }) cash_balance!: string;
  @ApiProperty({ example: '5.00' }) promotional_balance!: string;
  @ApiProperty({ example: '10.00' }) held_balance!: string;
  @ApiProperty({ example: '95.00', description: 'cash + promotional − held' }) available_balance!: string;
  @ApiProperty({ example: '0.00' }) credit_limit!: string;
  @ApiProperty({ type: String, nullable: true, example: '10000.00' }) max_balance!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '2500.00' }) max_single_credit!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '20.00' }) low_balance_threshold!: string | null;
  @ApiProperty({ example: true }) auto_topup_enabled!: boolean;
  @ApiProperty({ type: String, nullable: true, example: '50.00' }) auto_topup_amount!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'pm_5f1c9e2a7b3d4c6e8f0a1b2c_card_visa' }) auto_topup_payment_method_id!:
    string | null;
  @ApiProperty({ example: '2026-11-22T10:15:30.000Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T12:30:00.000Z' }) updated_at!: string;
}

export class WalletListDto {
  @ApiProperty({ type: [WalletDto] }) data!: WalletDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

class FundingLotDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d0b' }) lot_id!: string;
  @ApiProperty({ example: '10.00' }) amount!: string;
  @ApiProperty({ type: String, nullable: true, example: '2027-01-01T00:00:00.000Z' }) expires_at!: string | null;
}

class FundingDto {
  @ApiProperty({ type: [FundingLotDto] }) promotional_lots!: FundingLotDto[];
  @ApiProperty({ example: '2.00' }) cash!: string;
}

export class WalletTransactionDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d09' }) id!: string;
  @ApiProperty({ example: 'wallet_transaction' }) object!: string;
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07' }) wallet_id!: string;
  @ApiProperty({ enum: ['credit', 'debit', 'adjustment', 'hold_capture', 'expiry'], example: 'debit' }) type!: string;
  @ApiProperty({ enum: SOURCES, nullable: true, example: 'TRANSFER' }) source!: string | null;
  @ApiProperty({ example: '-12.00', description: 'Signed: credits positive, debits negative.' }) amount!: string;
  @ApiProperty({ example: 'EUR' }) currency!: string;
  @ApiProperty({ example: '-2.00' }) cash_amount!: string;
  @ApiProperty({ example: '-10.00' }) promotional_amount!: string;
  @ApiProperty({ example: '18.00' }) ending_cash_balance!: string;
  @ApiProperty({ example: '0.00' }) ending_promotional_balance!: string;
  @ApiProperty({ type: String, nullable: true, example: 'Move credit to the EU entity' }) reason!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) reference!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d0d' }) transfer_id!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: null, description: 'Set on hold_capture lines.' })
  hold_id!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) expires_at!: string | null;
  @ApiProperty({ type: () => ExchangeRateDto, nullable: true, description: 'The rate snapshot of a cross-currency transfer.' })
  exchange_rate!: ExchangeRateDto | null;
  @ApiProperty({
    type: () => FundingDto,
    nullable: true,
    description: 'Which promotional lots and how much cash paid for a debit.',
  })
  funding!: FundingDto | null;
  @ApiProperty({ type: PrincipalRefDto }) created_by!: PrincipalRefDto;
  @ApiProperty({ example: '2026-11-22T12:30:00.000Z' }) created_at!: string;
}

export class WalletTransactionListDto {
  @ApiProperty({ type: [WalletTransactionDto] }) data!: WalletTransactionDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

export { PendingApprovalDto } from '../http/pending-approval.dto';

export class CreateHoldDto {
  @ApiProperty(AMOUNT) @IsString() amount!: string;
  @ApiPropertyOptional({
    example: 'EUR',
    description: 'The hold’s currency; must be the wallet’s (cross-currency holds are internal).',
  })
  @IsOptional()
  @IsString()
  currency?: string;
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    example: '2026-11-23T12:00:00Z',
    nullable: true,
    description: 'Released automatically then.',
  })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsTimestamp()
  expires_at?: Date | null;
  @ApiPropertyOptional({ example: 'Usage reservation' }) @IsOptional() @IsString() @MaxLength(500) reason?: string;
  @ApiPropertyOptional({ example: 'inv_42', description: 'Paired with reference_type.' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  reference_id?: string;
  @ApiPropertyOptional({ example: 'invoice' }) @IsOptional() @IsString() @MaxLength(100) reference_type?: string;
  @ApiPropertyOptional({ example: false, description: 'The captured amount is subject to VAT reverse charge (tax zero).' })
  @IsOptional()
  @IsBoolean()
  reverse_charge?: boolean;
  @ApiPropertyOptional({ example: '0.19', description: 'Decimal fraction; 0.19 is 19 %.' })
  @IsOptional()
  @IsString()
  tax_rate?: string;
  @ApiPropertyOptional({ type: String, example: 'txr_de_standard', nullable: true })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @MaxLength(255)
  tax_rule_id?: string | null;
}

export class CaptureHoldDto {
  @ApiPropertyOptional({
    ...AMOUNT,
    description: 'Omit to capture the whole hold; the remainder of a partial capture is released.',
  })
  @IsOptional()
  @IsString()
  amount?: string;
}

export class HoldDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d0c' }) id!: string;
  @ApiProperty({ example: 'wallet_hold' }) object!: string;
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07' }) wallet_id!: string;
  @ApiProperty({ example: '40.00' }) amount!: string;
  @ApiProperty({ example: 'EUR' }) currency!: string;
  @ApiProperty({ enum: ['pending', 'captured', 'released'], example: 'captured' }) status!: string;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-23T12:00:00.000Z' }) expires_at!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Usage reservation' }) reason!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'inv_42' }) reference_id!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'invoice' }) reference_type!: string | null;
  @ApiProperty({ example: false }) reverse_charge!: boolean;
  @ApiProperty({ type: String, nullable: true, example: '0.19' }) tax_rate!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'txr_de_standard' }) tax_rule_id!: string | null;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: null,
    description: 'Internal only; null through the API.',
  })
  exchange_rate_base_leg_id!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: null, description: 'Internal only.' }) exchange_rate_id!:
    string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Internal only.' }) fx_policy_applied!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Internal only.' }) metric_key!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: null, description: 'Internal only.' }) subscription_id!:
    string | null;
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    nullable: true,
    example: null,
    description: 'Promotions applied up-front (internal only).',
  })
  applied_promotions!: unknown[] | null;
  @ApiProperty({
    enum: ['manual', 'expired', 'capture_remainder'],
    nullable: true,
    example: null,
    description: 'Set once released; capture_remainder after a partial capture.',
  })
  release_reason!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '40.00' }) captured_amount!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '33.61' }) captured_net_amount!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '6.39' }) captured_tax_amount!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d0a' }) capture_transaction_id!:
    string | null;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-22T16:45:00.000Z' }) captured_at!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Set once released (also for a partial capture).' })
  released_at!: string | null;
  @ApiProperty({ example: '2026-11-22T12:30:00.000Z' }) created_at!: string;
}

export class HoldListDto {
  @ApiProperty({ type: [HoldDto] }) data!: HoldDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

export class TransferAmountDto {
  @ApiProperty(AMOUNT) @IsString() value!: string;
  @ApiProperty({ example: 'EUR', description: 'Must be the source wallet’s currency.' }) @IsString() currency!: string;
}

export class TransferDto {
  @ApiProperty({ type: TransferAmountDto }) @ValidateNested() @Type(() => TransferAmountDto) amount!: TransferAmountDto;
  @ApiProperty({
    example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d08',
    description: 'A wallet of the same workspace; another currency converts at the organization’s FX rate.',
  })
  @IsUUID()
  target_wallet_id!: string;
  @ApiPropertyOptional({ example: 'Move credit to the EU entity' }) @IsOptional() @IsString() @MaxLength(500) reason?: string;
}

class MoneyValueDto {
  @ApiProperty({ example: '25.00' }) value!: string;
  @ApiProperty({ example: 'EUR' }) currency!: string;
}

class ExchangeRateDto {
  @ApiProperty({ example: '1.0825' }) rate!: string;
  @ApiProperty({ example: 'EUR' }) from_currency!: string;
  @ApiProperty({ example: 'USD' }) to_currency!: string;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) as_of!: string;
}

export class TransferResponseDto {
  @ApiProperty({ example: 'wallet_transfer' }) object!: string;
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d0d' }) transfer_id!: string;
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07' }) source_wallet_id!: string;
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d08' }) target_wallet_id!: string;
  @ApiProperty({ type: MoneyValueDto }) amount!: MoneyValueDto;
  @ApiProperty({ type: MoneyValueDto }) target_amount!: MoneyValueDto;
  @ApiProperty({ type: ExchangeRateDto, nullable: true }) exchange_rate!: ExchangeRateDto | null;
  @ApiProperty({ type: WalletTransactionDto }) debit_transaction!: WalletTransactionDto;
  @ApiProperty({ type: WalletTransactionDto }) credit_transaction!: WalletTransactionDto;
}

export class PutFxRateDto {
  @ApiProperty({ example: '1.0825', description: 'Units of `to` per one unit of `from` (decimal string, > 0).' })
  @IsString()
  rate!: string;
}

export class FxRateDto {
  @ApiProperty({ example: 'fx_rate' }) object!: string;
  @ApiProperty({ example: 'EUR' }) from_currency!: string;
  @ApiProperty({ example: 'USD' }) to_currency!: string;
  @ApiProperty({ example: '1.0825' }) rate!: string;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) updated_at!: string;
}

export class FxRateListDto {
  @ApiProperty({ type: [FxRateDto] }) data!: FxRateDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

/** One debit of a batch: the body of POST /v1/wallets/{id}/debit, with the wallet named by wallet_id. */
export class WalletDebitItemDto extends MoneyOperationDto {
  @ApiProperty({
    type: String,
    format: 'uuid',
    example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07',
    description: 'A wallet of the workspace; an unknown one (or another workspace’s) is this item’s 404 WALLET_NOT_FOUND.',
  })
  @IsString()
  @MaxLength(100)
  wallet_id!: string;
  @ApiPropertyOptional({ enum: SOURCES, example: 'CHARGE', description: 'Default CHARGE.' }) declare source?: string;
  @ApiPropertyOptional({
    example: 'usage_2026-11-22_api_calls',
    description: 'A repeated (source, reference) on the wallet replays the original debit (this batch’s earlier items included).',
  })
  declare reference?: string;
}

/**
 * Items past the limit are never transformed further or validated: an array longer than the
 * limit is refused as a whole (debits OUT_OF_RANGE), so a 1 MB body of tiny items costs no more
 * than 1,001 of them.
 */
const atMostOneOverLimit = ({ value }: { value: unknown }) =>
  Array.isArray(value) && value.length > MAX_BATCH_DEBITS ? value.slice(0, MAX_BATCH_DEBITS + 1) : value;

export class WalletDebitBatchDto {
  @ApiProperty({
    type: [WalletDebitItemDto],
    description: `1 to ${MAX_BATCH_DEBITS} debits, applied in this order (items on one wallet in turn).`,
    example: [
      { wallet_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07', amount: '1.25', reference: 'usage_2026-11-22_api_calls' },
      { wallet_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d08', amount: '0.40', reference: 'usage_2026-11-22_storage' },
    ],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BATCH_DEBITS)
  @ValidateNested({ each: true })
  @Type(() => WalletDebitItemDto)
  @Transform(atMostOneOverLimit)
  debits!: WalletDebitItemDto[];
  @ApiPropertyOptional({
    example: false,
    description: 'true: every item applies or none does (422 BATCH_REJECTED naming the refused items). Default false.',
  })
  @IsOptional()
  @IsBoolean()
  atomic?: boolean;
}

export class WalletDebitOutcomeDto {
  @ApiProperty({ example: 0, description: 'The item’s position in `debits`.' }) index!: number;
  @ApiProperty({ example: 200, description: 'What POST /v1/wallets/{id}/debit would have answered for this item.' })
  status!: number;
  @ApiPropertyOptional({ type: WalletTransactionDto, description: 'When status is 200: the debit (or the one it replays).' })
  transaction?: WalletTransactionDto;
  @ApiPropertyOptional({
    type: ErrorDetailDto,
    description: 'When status is 4xx: the error that route would have answered (its body’s `error`); nothing applied for it.',
  })
  error?: ErrorDetailDto;
}

export class WalletDebitBatchResultDto {
  @ApiProperty({ example: 'list' }) object!: string;
  @ApiProperty({ type: [WalletDebitOutcomeDto], description: 'One outcome per item, in request order.' })
  data!: WalletDebitOutcomeDto[];
}
