// Runs the @nestjs/swagger CLI plugin under ts-jest, so tests see the same OpenAPI document as `nest build`.
const transformer = require('@nestjs/swagger/plugin');
const { compilerOptions } = require('../../nest-cli.json');

const options = compilerOptions.plugins.find((p) => p.name === '@nestjs/swagger').options;

module.exports.name = 'nestjs-swagger-transformer';
module.exports.version = 1;
module.exports.factory = (tsCompiler) => transformer.before(options, tsCompiler.program);
