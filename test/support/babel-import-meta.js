// Prepares the ES-module packages Jest compiles to CommonJS (see jest.config.js): rewrites
// `import.meta.url` and `import.meta.resolve()`, and renames a module-level `const require = createRequire(...)`, which
// would otherwise shadow the `require` that the CommonJS transform emits for imports.
module.exports = function esmToCommonJsHelpers({ template }) {
  const url = () => template.expression.ast`'file://' + __filename`;
  return {
    visitor: {
      Program(path) {
        if (path.scope.hasOwnBinding('require')) path.scope.rename('require', '__esmRequire');
      },
      MetaProperty(path) {
        if (path.node.meta.name !== 'import' || path.node.property.name !== 'meta') return;
        const parent = path.parentPath;
        const property = parent.isMemberExpression() ? parent.node.property.name : undefined;
        if (property === 'url') parent.replaceWith(url());
        else if (property === 'resolve')
          parent.replaceWith(template.expression.ast`((specifier) => 'file://' + require.resolve(specifier))`);
        else path.replaceWith(template.expression.ast`({ url: ${url()} })`);
      },
    },
  };
};
