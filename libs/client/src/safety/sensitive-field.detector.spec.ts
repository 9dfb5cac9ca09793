import { isSensitiveField } from './sensitive-field.detector';

describe('isSensitiveField', () => {
  it.each([
    'password',
    'Password',
    'newPassword',
    'password_confirm',
    'password2',
    'passwd',
    'passphrase',
    'clientSecret',
    'SECRET',
    'accessToken',
    'refresh-token',
    'apiKey',
    'APIKey',
    'api_key',
    'apikey',
    'API Key',
    'privateKey',
    'private_key',
    'ssn',
    'ssnLast4',
    'socialSecurityNumber',
    'creditCard',
    'credit_card_number',
    'cardNumber',
    'cvv',
    'CVV2',
    'pin',
    'userPIN',
    'pinCode',
    'otp',
    'otpCode',
    '2fa',
    '2FA_code',
    '2FACode',
    'cvv2Code',
  ])('flags the field name %s', (name) => {
    expect(isSensitiveField(name, { type: 'string' })).toBe(true);
  });

  it.each(['name', 'email', 'city', 'pineapple', 'spinner', 'opinion', 'tokenizer', 'secretary', 'cardinal'])(
    'does not flag the field name %s',
    (name) => {
      expect(isSensitiveField(name, { type: 'string', title: 'Your answer' })).toBe(false);
    },
  );

  it('reads the title and the description', () => {
    expect(isSensitiveField('value', { type: 'string', title: 'GitHub personal access token' })).toBe(true);
    expect(isSensitiveField('code', { type: 'string', description: 'Enter the PIN we sent you' })).toBe(true);
    expect(isSensitiveField('code', { type: 'string', description: 'Postal code' })).toBe(false);
  });

  it('flags format password and writeOnly', () => {
    expect(isSensitiveField('x', { type: 'string', format: 'password' })).toBe(true);
    expect(isSensitiveField('x', { type: 'string', writeOnly: true })).toBe(true);
    expect(isSensitiveField('x', { type: 'string', writeOnly: false })).toBe(false);
  });

  it('tolerates a schema that is not an object and non-string titles', () => {
    expect(isSensitiveField('x', null)).toBe(false);
    expect(isSensitiveField('token', 'nonsense')).toBe(true);
    expect(isSensitiveField('x', { title: 42, description: ['password'] })).toBe(false);
  });
});
