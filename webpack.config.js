// One base, two targets: the browser bundle (content-hashed JS and CSS plus a manifest the
// server reads) and the server bundle for Node.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import MiniCssExtractPlugin from 'mini-css-extract-plugin';
import { register } from 'tsx/esm/api';
import webpack from 'webpack';

const root = path.dirname(fileURLToPath(import.meta.url));
// Where the browser fetches the bundle from: the route table's assets prefix, the one place a
// request path is written (src/request-kinds.ts). tsx lets this config import the TypeScript.
register();
const { route } = await import('./src/request-kinds.ts');
const publicPath = route('assets').prefix;

/**
 * Writes manifest.json: the one entry's initial JS and CSS files in load order. The server
 * reads `scripts` and `styles`, so no chunk name has to match between the two sides.
 */
class ManifestPlugin {
  apply(compiler) {
    compiler.hooks.thisCompilation.tap('KioskManifest', (compilation) => {
      compilation.hooks.processAssets.tap({ name: 'KioskManifest', stage: webpack.Compilation.PROCESS_ASSETS_STAGE_REPORT }, () => {
        const [entrypoint, ...others] = compilation.entrypoints.values();
        if (!entrypoint || others.length > 0) throw new Error('the client build must have exactly one entry');
        const files = entrypoint.getFiles();
        const manifest = {
          mode: compiler.options.mode,
          // Changes every build, so webpack rewrites the file even when no asset changed:
          // scripts/build-state.ts reads its time as the build's.
          builtAt: new Date().toISOString(),
          publicPath,
          scripts: files.filter((f) => f.endsWith('.js')),
          styles: files.filter((f) => f.endsWith('.css')),
        };
        compilation.emitAsset('../manifest.json', new webpack.sources.RawSource(`${JSON.stringify(manifest, null, 2)}\n`));
      });
    });
  }
}

/**
 * Writes a gzip copy beside each text asset, so Nginx's gzip_static sends it without
 * compressing the same bytes on every request. Level 9: paid once per build, not per request.
 */
class PrecompressPlugin {
  apply(compiler) {
    compiler.hooks.thisCompilation.tap('KioskPrecompress', (compilation) => {
      compilation.hooks.processAssets.tap({ name: 'KioskPrecompress', stage: webpack.Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_TRANSFER }, (assets) => {
        for (const [name, source] of Object.entries(assets)) {
          if (!/\.(js|css|svg|map)$/.test(name)) continue;
          const gzipped = zlib.gzipSync(source.buffer(), { level: 9 });
          compilation.emitAsset(`${name}.gz`, new webpack.sources.RawSource(gzipped), { compressed: true });
        }
      });
    });
  }
}

function base(mode) {
  return {
    mode,
    context: root,
    resolve: { extensions: ['.tsx', '.ts', '.js'] },
    module: {
      rules: [
        {
          test: /\.[jt]sx?$/,
          exclude: /node_modules/,
          loader: 'esbuild-loader',
          options: { target: 'es2022', jsx: 'automatic' },
        },
      ],
    },
    stats: 'errors-warnings',
    performance: { hints: false },
  };
}

function clientConfig(mode) {
  const b = base(mode);
  const production = mode === 'production';
  return {
    ...b,
    name: 'client',
    target: 'web',
    entry: './client/index.tsx',
    output: {
      path: path.join(root, 'dist/client/assets'),
      publicPath,
      filename: production ? '[name].[contenthash:10].js' : '[name].js',
      chunkFilename: production ? '[name].[contenthash:10].js' : '[name].js',
      clean: true,
    },
    module: {
      rules: [...b.module.rules, { test: /\.css$/, use: [MiniCssExtractPlugin.loader, 'css-loader'] }],
    },
    optimization: {
      // React, Redux and the router change far less often than the site's own code.
      splitChunks: { chunks: 'all', cacheGroups: { vendor: { test: /node_modules/, name: 'vendor', chunks: 'all' } } },
      runtimeChunk: 'single',
    },
    devtool: production ? 'source-map' : 'eval-cheap-module-source-map',
    plugins: [
      new MiniCssExtractPlugin({ filename: production ? '[name].[contenthash:10].css' : '[name].css' }),
      new ManifestPlugin(),
      ...(production ? [new PrecompressPlugin()] : []),
    ],
  };
}

/**
 * Writes dist/client/shell.html, the overload shell Nginx serves when every worker is full, with
 * the server bundle's own renderer (dist/server/write-shell.cjs), so its bytes are the ones a
 * worker would send. Runs after the client build (the server config depends on it), every build.
 */
class ShellFilePlugin {
  apply(compiler) {
    compiler.hooks.afterEmit.tap('KioskShellFile', (compilation) => {
      if (compilation.errors.length > 0) return;
      execFileSync(process.execPath, [path.join(root, 'dist/server/write-shell.cjs'), path.join(root, 'dist')], { stdio: 'inherit' });
    });
  }
}

function serverConfig(mode) {
  const b = base(mode);
  return {
    ...b,
    name: 'server',
    // The shell file is rendered from the client manifest.
    dependencies: ['client'],
    target: 'node24',
    // index: the throng entry. seed-demo: with SEED_DEMO_CONTENT=true seeds an empty content
    // store with demo articles and exits; the Procfile runs it before index on an instance,
    // where tsx (a devDependency) is absent. Its own entry keeps the seed out of index.cjs.
    // write-shell: the overload shell as a file for Nginx (ShellFilePlugin).
    entry: { index: './server/index.ts', 'seed-demo': './server/seed-demo.ts', 'write-shell': './server/write-shell.ts' },
    output: {
      path: path.join(root, 'dist/server'),
      filename: '[name].cjs',
      library: { type: 'commonjs2' },
      clean: true,
    },
    // Packages load from node_modules at run time (better-sqlite3 is native); two are
    // bundled: universal-router, which ships as ESM, and valibot (src/content-schema.ts), a
    // devDependency because its optional peer dependency on TypeScript would otherwise make
    // `npm ci --omit=dev` install TypeScript on every instance.
    externals: [
      ({ request }, callback) => {
        if (request && /^[@a-z]/.test(request) && !/^(universal-router|valibot)(\/|$)/.test(request)) {
          return callback(null, `commonjs ${request}`);
        }
        return callback();
      },
    ],
    externalsPresets: { node: true },
    optimization: { minimize: false, nodeEnv: false },
    devtool: 'source-map',
    // One file per entry: a module loaded with import() (what only the primary runs, the
    // PostgreSQL store) stays in it, and is evaluated only by a process that asks for it.
    plugins: [new ShellFilePlugin(), new webpack.optimize.LimitChunkCountPlugin({ maxChunks: 1 })],
  };
}

export default (_env, argv) => {
  const mode = argv.mode ?? 'production';
  return [clientConfig(mode), serverConfig(mode)];
};
