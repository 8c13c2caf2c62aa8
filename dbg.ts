import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Judge, operationsOf, drawValid } from './test/helpers/openapi-requests.js';
const doc = JSON.parse(readFileSync('/tmp/contract-doc.json', 'utf8'));
const judge = new Judge(doc);
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
for (const f of ['int32', 'int64', 'float', 'double']) ajv.addFormat(f, true);
ajv.addSchema({ $id: 'doc', components: doc.components });
for (const op of operationsOf(doc).filter((o) => process.argv.slice(2).includes(o.id))) {
  const schema = JSON.parse(JSON.stringify(op.body).replaceAll('"#/components/', '"doc#/components/'));
  const v = ajv.compile(schema);
  for (let s = 1; s < 4; s++) {
    const body = judge.draw(op.body!, s);
    v(body);
    console.log(op.id, JSON.stringify(v.errors?.slice(0, 3)).slice(0, 600));
  }
}
import { generateSync } from 'json-schema-faker';
console.log(JSON.stringify(generateSync({type:'array', items:{type:'string', enum:['a','b']}, minItems:1, maxItems: 3}, {seed: 3})));
console.log(JSON.stringify(generateSync({type:'array', items:{$ref:'#/$defs/x'}, minItems:1, maxItems: 2, $defs:{x:{type:'object', properties:{a:{type:'string'}}, required:['a']}}}, {seed: 3})));
const d2 = JSON.parse(readFileSync('/tmp/contract-doc.json', 'utf8'));
console.log(JSON.stringify(generateSync({ ...d2.components.schemas.CreateWebhookEndpointRequest, components: d2.components }, {seed: 3})).slice(0,300));
console.log(JSON.stringify(d2.components.schemas.LoadBatchRequest).slice(0,300));
console.log(JSON.stringify(generateSync({ ...d2.components.schemas.LoadBatchRequest, components: d2.components }, {seed: 3})).slice(0,300));
{
const op = operationsOf(d2).find((o) => o.id === 'batchCarriers')!;
for (let s = 1; s < 4; s++) { const b = judge.draw(op.body!, s) as any; console.log(b.carriers.length, b.carriers.map((c: any) => JSON.stringify(c.carrier?.name))); }
console.log(JSON.stringify(d2.components.schemas.CarrierCreateRequest.properties.name));
}
