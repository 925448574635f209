// Vite's bundled esbuild compiles the JSX; no React plugin is needed.
const harmless = new Set(['MODULE_LEVEL_DIRECTIVE', 'INVALID_ANNOTATION']);

export default {
  esbuild: { jsx: 'automatic' },
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rollupOptions: {
      // Directives and comment annotations in dependencies that the bundler
      // drops; they change nothing in the bundle.
      onwarn(warning, warn) {
        if (!harmless.has(warning.code)) warn(warning);
      },
    },
  },
};
