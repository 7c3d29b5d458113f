import { VersionNumberPipe } from '../catalog/version-number.pipe';
import { createValidationPipe } from './validation';

describe('the global validation pipe and path parameters', () => {
  // tsc reflects the branded VersionNumber as Number (swc as Object): both must give the route's pipe the text.
  it.each([Number, Object])('leaves a path parameter reflected as %p as text for the route’s own pipe', async (metatype) => {
    const value = await createValidationPipe().transform('7', { type: 'param', metatype, data: 'version' });
    expect(value).toBe('7');
    expect(new VersionNumberPipe().transform(value)).toBe(7);
  });

  it('still refuses a version written another way than plain digits', async () => {
    const value = await createValidationPipe().transform('1e2', { type: 'param', metatype: Number, data: 'version' });
    expect(() => new VersionNumberPipe().transform(value)).toThrow('version must be a positive integer.');
  });
});
