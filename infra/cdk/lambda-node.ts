/**
 * The Node major every gw Lambda runs on. One constant, read by the CDK construct (constructs/gw-function.ts picks
 * the runtime by it), the bundler's target (bundle-options.ts) and the bench (bench/node/, which measures gw on this
 * Node: V8 versions differ enough that a figure from another major is not what ships). It imports nothing, so the
 * bench can read it without loading aws-cdk-lib.
 */
export const LAMBDA_NODE_MAJOR = 24;

/** The Lambda runtime identifier of that Node (`nodejs24.x`). */
export const LAMBDA_NODE_RUNTIME_NAME = `nodejs${LAMBDA_NODE_MAJOR}.x` as const;
