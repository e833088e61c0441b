/**
 * A Lambda function of this service from its TypeScript entry: the handler
 * bundled by the locally installed esbuild (no Docker) with the options of
 * lib/config/bundling.ts — ES module chunks, `index.mjs` the handler's file,
 * the AWS SDK inside so the deployed version is the one in package-lock.json.
 *
 * Why not NodejsFunction: it writes one `--outfile`, and esbuild splits code
 * into chunks only into an output folder, so every function carried every
 * module it might ever import (the X-Ray SDK, each AWS client, a route's
 * own libraries) and a cold start loaded it all. The asset is hashed by its
 * output like NodejsFunction's (the same bundle from any folder: its source
 * maps are normalized), and a synthesis that skips bundling
 * (`aws:cdk:bundling-stacks`) skips this one too.
 */
import { AssetHashType, type ILocalBundling } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { existsSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleLambda, LAMBDA_BUNDLING } from '../config/bundling';

/** Repository root, resolved from this file so synth works from any working directory. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The runtime of every function of the service (lib/compliance/nag-acknowledgments.ts says why it is pinned). */
export const SERVICE_RUNTIME = lambda.Runtime.NODEJS_24_X;

/** The handler every bundle exports: `handler` of the entry file. */
export const SERVICE_HANDLER = `${LAMBDA_BUNDLING.entryFile.replace(/\.mjs$/, '')}.handler`;

export interface ServiceFunctionProps extends Omit<lambda.FunctionProps, 'code' | 'handler'> {
  /** The TypeScript module exporting `handler` (absolute, or relative to the project root). */
  readonly entry: string;
}

/**
 * The local esbuild run of one entry. A class with the entry as a field, not a bare function: CDK keys its cache of
 * staged assets by the bundling options' JSON, where a function is nothing, so every function would get the first
 * one's bundle.
 */
class LocalBundling implements ILocalBundling {
  /** Relative to the project root: the same cache key from any clone. */
  public readonly entry: string;

  constructor(entry: string) {
    this.entry = relative(PROJECT_ROOT, entry).split(sep).join('/');
  }

  tryBundle(outputDir: string): boolean {
    bundleLambda(PROJECT_ROOT, this.entry, outputDir);
    return true;
  }
}

/** The function's code: `entry` bundled locally, hashed by the bundle. */
export function serviceCode(entry: string): lambda.Code {
  return lambda.Code.fromAsset(PROJECT_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: the local bundling always succeeds or throws.
      image: SERVICE_RUNTIME.bundlingImage,
      local: new LocalBundling(entry),
    },
  });
}

export class ServiceFunction extends lambda.Function {
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const { entry, ...functionProps } = props;
    if (!existsSync(entry)) throw new Error(`ServiceFunction ${id}: entry ${entry} does not exist`);
    super(scope, id, { ...functionProps, code: serviceCode(entry), handler: SERVICE_HANDLER });
  }
}
