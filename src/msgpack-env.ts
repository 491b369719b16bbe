// Runs before msgpackr loads: its optional native extractor is replaced by an empty package (see package.json
// "overrides"), so msgpackr must be told to stay on its pure-JS decoder.
process.env.MSGPACKR_NATIVE_ACCELERATION_DISABLED = 'true';
