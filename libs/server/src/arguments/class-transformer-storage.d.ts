// class-transformer ships this module's types apart from its CommonJS build; this maps one to the other.
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}
