// Styles are bundled by esbuild from an import; TypeScript only needs to know the import exists.
declare module '*.css';
