'use strict';
// Plugins as a Moralis v1 server offered them. A client asks getPluginSpecs for the list, [{name, functions}],
// and calls function f of plugin p as the cloud function "{p}_{f}" (moralis-v1's Moralis.Plugins[p][f](params)).
// A plugin function answers the plugin server's HTTP answer as it got it: {data: {success, result}} on success,
// where result may carry triggers (browser actions: openUrl, web3Transaction, ...) and data; {data: {success:
// false, data}} on failure, which the client reports as "Something went wrong" followed by data as JSON.
//
// The devstack offers one plugin, "devstack", so that clients can be tested end to end:
//   devstack_echo(params)   succeeds with result {data: params, triggers: []}
//   devstack_refuse(params) fails with data {message: "refused", params}
const PLUGINS = [
  {
    name: 'devstack',
    functions: {
      echo: req => ({ data: { success: true, result: { data: req.params, triggers: [] } } }),
      refuse: req => ({ data: { success: false, data: { message: 'refused', params: req.params } } }),
    },
  },
];

Parse.Cloud.define('getPluginSpecs', () => PLUGINS.map(p => ({ name: p.name, functions: Object.keys(p.functions) })));

for (const p of PLUGINS) {
  for (const [fn, handler] of Object.entries(p.functions)) {
    Parse.Cloud.define(`${p.name}_${fn}`, handler);
  }
}
