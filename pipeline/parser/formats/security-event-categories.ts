// ECS categorisation for security devices' events that arrive in a generic
// envelope (CEF, LEEF): the words of the event's class id, name and the
// device's own category say what happened ("Virus found", "malware-callback",
// "Login failed", "User account created", "Policy modified"); when they say
// nothing known, the product says what kind of device it is (a firewall, an
// IPS, an endpoint protection suite); failing that, an event with addresses
// is network information and anything else host information. So every line
// such a reader takes is categorised. The device's action words (block,
// deny, allow ...) refine the type of network and intrusion events.
//
// The tables are data: a rule is the words that trigger it and the ECS
// values it gives. They are checked against ECS's allowed values when this
// module loads.
import { ECS_ALLOWED } from '../ecs-values.js';
import type { EventFields } from '../types.js';

interface CategoryRule {
  /** Names the rule in test failures. */
  name: string;
  words: RegExp;
  category: string[];
  type: string[];
  /** A detection rather than a record of activity. */
  alert?: boolean;
}

/** Tried in order on the event's own words (class id, name, device category); the first that matches decides. */
const WORD_RULES: readonly CategoryRule[] = [
  {
    name: 'malware',
    words: /\b(?:malware|virus\w*|cured|disinfect\w*|trojan|worm|ransomware|spyware|adware|rootkit|backdoor|infect\w*|eicar|quarantin\w*|malicious (?:file|code|object|program|url)|\w*callback|botnet|c&c|command and control|pua|potentially unwanted|threat (?:detected|found|quarantined|blocked|cleaned|removed))\b/,
    category: ['malware'],
    type: ['info'],
    alert: true,
  },
  {
    name: 'intrusion',
    words: /\b(?:intrusion|exploit\w*|attack\w*|ips|ids|sql ?injection|xss|cross.site|shellcode|overflow|brute.?force|port ?scan\w*|scan detect\w*|ddos|dos|flood\w*|anomal\w*|hips|suspicious|signature match\w*|behaviou?r(?:al)? (?:detection|block\w*)|access protection)\b/,
    category: ['intrusion_detection'],
    type: ['info'],
    alert: true,
  },
  { name: 'indicator', words: /\b(?:ioc|indicators? of compromise|reputation|blacklist\w*|blocklist\w*|threat intel\w*)\b/, category: ['threat'], type: ['indicator'], alert: true },
  { name: 'vulnerability', words: /\b(?:vulnerabilit\w*|cve-\d{4}-\d+|missing patch\w*)\b/, category: ['vulnerability'], type: ['info'] },
  { name: 'logout', words: /\b(?:log ?out|log ?off|logged (?:out|off)|sign ?out|signed out)\b/, category: ['authentication'], type: ['end'] },
  { name: 'login', words: /\b(?:log ?in|log ?on|logged (?:in|on)|sign ?in|authenticat\w*|password|credential\w*|sso|mfa|2fa|otp|kerberos|radius)\b/, category: ['authentication'], type: ['start'] },
  { name: 'iam', words: /\b(?:users?|accounts?|groups?|roles?|privileges?|permissions?|members?)\b/, category: ['iam'], type: ['change'] },
  { name: 'configuration', words: /\b(?:config\w*|polic(?:y|ies)|settings?|rules? (?:added|changed|modified|deleted|updated)|admin\w*|parameters?)\b/, category: ['configuration'], type: ['change'] },
  { name: 'email', words: /\b(?:e?-?mail|smtp|spam|phish\w*|attachment)\b/, category: ['email'], type: ['info'] },
  { name: 'web', words: /\b(?:https?|url|web|proxy|uri|waf|appfw|website|domain (?:blocked|allowed))\b/, category: ['web'], type: ['access'] },
  { name: 'registry', words: /\b(?:registry|reg key)\b/, category: ['registry'], type: ['change'] },
  { name: 'file', words: /\b(?:files?|documents?|folders?|directory)\b/, category: ['file'], type: ['info'] },
  { name: 'process', words: /\b(?:process\w*|command|execut\w*|application (?:started|launched|blocked))\b/, category: ['process'], type: ['start'] },
  { name: 'network', words: /\b(?:connection|session|socket|traffic|firewall|flow|packet|nat|vpn|tunnel|accept(?:ed)?|den(?:y|ied)|drop(?:ped)?|block(?:ed)?|permit(?:ted)?|allow(?:ed)?)\b/, category: ['network'], type: ['connection'] },
  { name: 'host', words: /\b(?:system|service|startup|shutdown|reboot|health|cpu|memory|disk|licen[cs]e|update\w*|agent|device|scan (?:started|completed|finished))\b/, category: ['host'], type: ['info'] },
];

/** Tried on the vendor and product names when the event's words decided nothing. */
const PRODUCT_RULES: readonly CategoryRule[] = [
  { name: 'ids', words: /\b(?:ips|ids|ngips|intrusion|tippingpoint|deep security|sourcefire|snort|suricata|arbor|peakflow|network security platform)\b/, category: ['intrusion_detection'], type: ['info'], alert: true },
  { name: 'firewall', words: /\b(?:firewall|fw|asa|ngfw|pan-os|fortigate|utm|gateway)\b/, category: ['network'], type: ['connection'] },
  { name: 'waf', words: /\b(?:waf|proxy|web|bluecoat|zscaler|squid|secure web)\b/, category: ['web'], type: ['access'] },
  { name: 'mail', words: /\b(?:mail|smtp|exchange|email)\b/, category: ['email'], type: ['info'] },
  { name: 'identity', words: /\b(?:ldap|active directory|radius|tacacs|ise|okta|sso|iam|duo|identity)\b/, category: ['authentication'], type: ['info'] },
  // FireEye's appliances (NX, EX, HX, the MPS platform) report detections only.
  { name: 'malware-appliance', words: /\b(?:fireeye|trellix nx|mps|cms)\b/, category: ['malware'], type: ['info'], alert: true },
  // An endpoint suite's event that names no detection is activity on the host (its detections matched above).
  {
    name: 'endpoint-protection',
    words: /\b(?:anti-?virus|antimalware|endpoint|epo|ens|virusscan|eset|sophos|symantec|sep|defender|kaspersky\w*|apex ?one|officescan|crowdstrike|carbon ?black|cylance|panda|paps|adaptive defense)\b/,
    category: ['host'],
    type: ['info'],
  },
];

const DENY_WORDS = /^(?:den(?:y|ied)|drop(?:ped)?|block(?:ed)?|reject(?:ed)?|prevent(?:ed)?|refused?|reset|terminated?|quarantin\w*|clean(?:ed)?|delet(?:e|ed)|removed?|fail(?:ed|ure)?)$/;
const ALLOW_WORDS = /^(?:allow(?:ed)?|accept(?:ed)?|permit(?:ted)?|pass(?:ed)?|success(?:ful)?|logged|detected|alert(?:ed)?|monitor(?:ed)?)$/;
const CREATE_WORDS = /\b(?:creat\w*|add(?:ed)?|new|install\w*)\b/;
const DELETE_WORDS = /\b(?:delet\w*|remov\w*|uninstall\w*)\b/;
const GROUP_WORDS = /\b(?:groups?|roles?|members?)\b/;

for (const rule of [...WORD_RULES, ...PRODUCT_RULES]) {
  for (const c of rule.category) if (!ECS_ALLOWED['event.category'].has(c)) throw new Error(`security event rule ${rule.name}: ${c} is not an ECS category`);
  for (const t of rule.type) if (!ECS_ALLOWED['event.type'].has(t)) throw new Error(`security event rule ${rule.name}: ${t} is not an ECS type`);
}

export interface SecurityEventFacts {
  vendor?: string;
  product?: string;
  /** The device's id for the event class (CEF signature id, LEEF event id). */
  id?: string;
  /** The event's name or message. */
  name?: string;
  /** The device's own category of the event (CEF cat, LEEF cat). */
  deviceCategory?: string;
  /** What the device did (CEF act, LEEF action). */
  action?: string;
}

/** The first rule whose words occur in `text` (at most its first 400 characters are read). */
function firstRule(rules: readonly CategoryRule[], text: string): CategoryRule | undefined {
  const bounded = text.slice(0, 400).toLowerCase().replace(/[_-]+/g, ' ');
  return rules.find((r) => r.words.test(bounded));
}

function typeFor(rule: CategoryRule, text: string): string[] {
  const lower = text.slice(0, 400).toLowerCase();
  if (rule.category[0] === 'iam') {
    const subject = GROUP_WORDS.test(lower) ? 'group' : 'user';
    return [subject, CREATE_WORDS.test(lower) ? 'creation' : DELETE_WORDS.test(lower) ? 'deletion' : 'change'];
  }
  if (rule.category[0] === 'configuration' || rule.category[0] === 'file') {
    if (CREATE_WORDS.test(lower)) return ['creation'];
    if (DELETE_WORDS.test(lower)) return ['deletion'];
  }
  return [...rule.type];
}

/**
 * Sets event.category and event.type (and event.kind alert for detections)
 * from what the device says about the event; fields already set are kept.
 */
export function categorizeSecurityEvent(fields: EventFields, facts: SecurityEventFacts): void {
  if (fields['event.category'] !== undefined && fields['event.type'] !== undefined) return;
  const words = [facts.id, facts.name, facts.deviceCategory].filter(Boolean).join(' ');
  let rule = firstRule(WORD_RULES, words);
  let type = rule ? typeFor(rule, words) : undefined;
  if (!rule) {
    rule = firstRule(PRODUCT_RULES, `${facts.vendor ?? ''} ${facts.product ?? ''}`);
    type = rule ? [...rule.type] : undefined;
  }
  const hasAddresses = fields['source.ip'] !== undefined || fields['destination.ip'] !== undefined;
  const category = rule ? [...rule.category] : [hasAddresses ? 'network' : 'host'];
  type ??= ['info'];
  if (rule?.alert) fields['event.kind'] = 'alert';

  // What the device did with a connection or an attack: ECS's allowed and denied.
  const action = facts.action?.trim().toLowerCase();
  const verdict = action ? (DENY_WORDS.test(action) ? 'denied' : ALLOW_WORDS.test(action) ? 'allowed' : undefined) : undefined;
  if (verdict && (category[0] === 'network' || category[0] === 'intrusion_detection')) type = [...type.filter((t) => t !== 'info'), verdict];
  if (category[0] === 'intrusion_detection' && hasAddresses) category.push('network');
  fields['event.category'] = category;
  fields['event.type'] = type;
}
