import { loadOptionalPackage } from './optional-package';

const nodeMissing = (name: string) =>
  Object.assign(new Error(`Cannot find module '${name}'\nRequire stack:\n- /app/main.js`), {
    code: 'MODULE_NOT_FOUND',
  });

describe('loadOptionalPackage', () => {
  it('returns what the loader returns when the package is there', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const loaded = loadOptionalPackage('typescript', 'the checker', () => require('typescript') as { version: string });
    expect(typeof loaded.version).toBe('string');
  });

  it('names the purpose and the install command when the package itself is missing (a real require)', () => {
    let caught: unknown;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loadOptionalPackage('conduit-no-such-package', 'The exporter', () => require('conduit-no-such-package'));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).message).toBe(
      'The exporter needs the package "conduit-no-such-package": npm install conduit-no-such-package',
    );
    expect((caught as Error).cause).toMatchObject({ code: 'MODULE_NOT_FOUND' });
  });

  it('says which Node is needed when an ES-modules-only package cannot be required (Node before 20.19)', () => {
    const tooOld = Object.assign(new Error('require() of ES Module /app/node_modules/jose/index.js not supported'), {
      code: 'ERR_REQUIRE_ESM',
    });
    let caught: unknown;
    try {
      loadOptionalPackage('jose', 'JWT access tokens', () => {
        throw tooOld;
      });
    } catch (error) {
      caught = error;
    }
    expect((caught as Error).message).toBe(
      'JWT access tokens needs Node 20.19 or later: "jose" ships ES modules only, loaded with require(esm)',
    );
    expect((caught as Error).cause).toBe(tooOld);
  });

  it('says --save-dev for a development package, and counts a missing subpath of the package', () => {
    expect(() =>
      loadOptionalPackage(
        '@nestjs/testing',
        'createMcpTestingModule',
        () => {
          throw nodeMissing('@nestjs/testing/testing-module');
        },
        { dev: true },
      ),
    ).toThrow('createMcpTestingModule needs the package "@nestjs/testing": npm install --save-dev @nestjs/testing');
  });

  it('recognises the ESM wording of a missing package', () => {
    const esm = Object.assign(new Error("Cannot find package 'left-pad' imported from /app/main.mjs"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    expect(() =>
      loadOptionalPackage('left-pad', 'Padding', () => {
        throw esm;
      }),
    ).toThrow('Padding needs the package "left-pad": npm install left-pad');
  });

  it('rethrows untouched a missing dependency of the package, a look-alike name, and any other failure', () => {
    const transitive = nodeMissing('tslib');
    const lookAlike = nodeMissing('@nestjs/testing-extra');
    const broken = new TypeError('boom while loading');
    for (const error of [transitive, lookAlike, broken, 'a thrown string']) {
      let caught: unknown;
      try {
        loadOptionalPackage('@nestjs/testing', 'Tests', () => {
          throw error;
        });
      } catch (thrown) {
        caught = thrown;
      }
      expect(caught).toBe(error);
    }
  });
});
