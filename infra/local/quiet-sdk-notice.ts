/**
 * Imported first by the local entry points (npm start, the CLI), before any AWS SDK client exists: Node 20 is a
 * supported platform of gw's local runtime, so the SDK's ten-line "upgrade to Node 22" notice on every start is
 * noise. The SDK reads this variable when its first client is constructed; a value the user set is kept.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
