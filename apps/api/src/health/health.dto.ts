import { ApiProperty } from '../http/api-property';

export class HealthDto {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status!: 'ok';
}

class ReadinessChecksDto {
  @ApiProperty({ enum: ['up', 'down'], example: 'up' }) database!: 'up' | 'down';
  @ApiProperty({ enum: ['applied', 'pending', 'unknown'], example: 'applied' }) migrations!: 'applied' | 'pending' | 'unknown';
}

export class ReadinessDto {
  @ApiProperty({ enum: ['ok', 'unavailable'], example: 'ok' }) status!: 'ok' | 'unavailable';
  @ApiProperty({ type: ReadinessChecksDto }) checks!: ReadinessChecksDto;
}
