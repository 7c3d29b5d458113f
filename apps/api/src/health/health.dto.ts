import { ApiProperty, ApiPropertyOptional } from '../http/api-property';

export class HealthDto {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status!: 'ok';
}

class ReadinessChecksDto {
  @ApiProperty({ enum: ['up', 'down'], example: 'up' }) database!: 'up' | 'down';
  @ApiProperty({ enum: ['applied', 'pending', 'unknown'], example: 'applied' }) migrations!: 'applied' | 'pending' | 'unknown';
}

class ReadinessDatabaseDto {
  @ApiProperty({ enum: ['citus'], example: 'citus' }) engine!: 'citus';
  @ApiProperty({ type: Number, minimum: 0, example: 2, description: 'Active worker nodes holding the shards.' }) workers!: number;
}

export class ReadinessDto {
  @ApiProperty({ enum: ['ok', 'unavailable'], example: 'ok' }) status!: 'ok' | 'unavailable';
  @ApiProperty({ type: ReadinessChecksDto }) checks!: ReadinessChecksDto;
  @ApiPropertyOptional({
    type: ReadinessDatabaseDto,
    description: 'Only on a Citus coordinator (organizations spread over several PostgreSQL nodes): the engine and its workers.',
  })
  database?: ReadinessDatabaseDto;
}
