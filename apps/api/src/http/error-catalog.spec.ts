import { defineErrors, DomainError } from '@app/shared-kernel';
import { catalogOf, exampleBody, statusOf } from './error-catalog';

describe('error catalog built from the error definitions', () => {
  it('documents a code with its definition’s kind, example, param and details', () => {
    expect(statusOf('PLAN_NOT_FOUND')).toBe(404);
    expect(exampleBody('INSUFFICIENT_FUNDS').error).toMatchObject({
      type: 'business_rule_error',
      code: 'INSUFFICIENT_FUNDS',
      message: 'The wallet cannot cover this amount, credit limit included.',
      param: 'amount',
      status: 422,
      details: { requested: '120.00', spendable: '95.00', currency: 'EUR' },
    });
  });

  it('refuses a code declared in two definition sets', () => {
    const one = defineErrors({ SAME_CODE: { kind: 'conflict', example: 'One.' } });
    const other = defineErrors({ SAME_CODE: { kind: 'conflict' } });
    expect(() => catalogOf([one, other])).toThrow('Error code SAME_CODE is declared more than once');
  });

  it('documents only the definitions with an example', () => {
    const set = defineErrors({ SHOWN: { kind: 'not_found', example: 'No such thing.' }, HIDDEN: { kind: 'internal' } });
    expect([...catalogOf([set]).keys()]).toEqual(['SHOWN']);
  });
});

describe('defineErrors', () => {
  const Errors = defineErrors({ THING_NOT_FOUND: { kind: 'not_found', example: 'No such thing.', param: 'id' } });

  it('creates the DomainError of its code and kind with the throw site’s message and options', () => {
    const error = Errors.THING_NOT_FOUND.create('No thing 7.', { param: 'thing_id', details: { id: 7 } });
    expect(error).toBeInstanceOf(DomainError);
    expect([error.kind, error.code, error.message, error.param, error.details]).toEqual([
      'not_found',
      'THING_NOT_FOUND',
      'No thing 7.',
      'thing_id',
      { id: 7 },
    ]);
    expect(Errors.THING_NOT_FOUND.code).toBe('THING_NOT_FOUND');
  });

  it('refuses a code that is not UPPER_SNAKE', () => {
    expect(() => defineErrors({ notUpper: { kind: 'conflict' } })).toThrow('Error code notUpper is not UPPER_SNAKE');
  });
});
