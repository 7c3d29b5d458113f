import 'reflect-metadata';
import { ApiPropertyOptions, DECORATORS } from '@nestjs/swagger';
import { ApiProperty, ApiPropertyOptional } from './api-property';
import { IsTimestamp } from './timestamp';

/** What @nestjs/swagger recorded for a property (its schema metadata). */
function recorded(type: new () => unknown, property: string): Record<string, unknown> {
  return Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, type.prototype, property);
}

describe('ApiProperty: a property whose TypeScript type reflects as Object must declare its OpenAPI type', () => {
  it('refuses a nullable string (a union) declared without a type, naming the property', () => {
    expect(() => {
      class Settings {
        @ApiPropertyOptional({ nullable: true, example: '10.00' }) credit_limit?: string | null;
      }
      return Settings;
    }).toThrow(/Settings\.credit_limit: .*reflects as Object/);
  });

  it('refuses unknown and records declared without a type, and a bare object without a shape', () => {
    expect(() => {
      class Query {
        @ApiPropertyOptional({ example: 50 }) limit?: unknown;
      }
      return Query;
    }).toThrow(/Query\.limit/);
    expect(() => {
      class Body {
        // The typings refuse this literal; options assembled at run time reach the check.
        @ApiProperty({ type: 'object', example: { a: 'b' } } as ApiPropertyOptions) metadata!: Record<string, string>;
      }
      return Body;
    }).toThrow(/Body\.metadata: an object needs its properties/);
  });

  it('takes the declared type, and still reads plain types from TypeScript', () => {
    class Settings {
      @ApiPropertyOptional({ type: String, nullable: true, example: '10.00' }) credit_limit?: string | null;
      @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { a: 'b' } }) metadata!: Record<
        string,
        string
      >;
      @ApiProperty({ example: 'EUR' }) currency!: string;
    }
    expect(recorded(Settings, 'credit_limit')).toEqual(
      expect.objectContaining({ type: String, nullable: true, required: false }),
    );
    expect(recorded(Settings, 'metadata')).toEqual(expect.objectContaining({ type: 'object' }));
    expect(recorded(Settings, 'currency')).toEqual({ type: String, example: 'EUR' });
  });
});

describe('ApiProperty: the range IsTimestamp enforces', () => {
  it('is published in the description, after the one written', () => {
    class Body {
      @ApiPropertyOptional({ type: String, format: 'date-time', description: 'Default: now.' })
      @IsTimestamp()
      starts_at?: Date;
      @ApiProperty({ type: String, format: 'date-time' }) @IsTimestamp() ends_at!: Date;
    }
    expect(recorded(Body, 'starts_at').description).toBe(
      'Default: now. An instant from 1970-01-01T00:00:00.000Z to 9998-12-31T23:59:59.999Z.',
    );
    expect(recorded(Body, 'ends_at').description).toBe('An instant from 1970-01-01T00:00:00.000Z to 9998-12-31T23:59:59.999Z.');
  });
});
