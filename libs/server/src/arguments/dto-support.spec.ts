describe('dtoSupport without the DTO packages', () => {
  const mocked: string[] = [];
  afterEach(() => {
    for (const name of mocked.splice(0)) jest.dontMock(name);
    jest.resetModules();
  });

  // As Node reports a package that is not installed.
  const notInstalled = (name: string) => () => {
    throw Object.assign(new Error(`Cannot find module '${name}'\nRequire stack:\n- dto-input.validator.js`), {
      code: 'MODULE_NOT_FOUND',
    });
  };

  it.each(['class-validator', 'class-transformer', 'class-validator-jsonschema'])(
    'names %s and how to install it',
    (name) => {
      jest.doMock(name, notInstalled(name));
      mocked.push(name);
      const { dtoSupport } = jest.requireActual<typeof import('./dto-support')>('./dto-support');
      expect(() => dtoSupport()).toThrow(
        `A tool whose input is a DTO class (it uses class-validator, class-transformer, class-validator-jsonschema) needs the package "${name}": npm install ${name}`,
      );
    },
  );

  it('loads them when they are installed', () => {
    const { dtoSupport } = jest.requireActual<typeof import('./dto-support')>('./dto-support');
    expect(typeof dtoSupport().DtoInputValidator).toBe('function');
  });
});
