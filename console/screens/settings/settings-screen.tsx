import { Link } from 'wouter';
import { AgentSection } from './agent-section';
import { ApiKeysSection } from './api-keys-section';
import { LoadsSection } from './loads-section';
import { TeamSection } from './team-section';
import { VoiceSection } from './voice-section';
import { WebhooksSection } from './webhooks-section';

const SECTIONS = [
  { key: 'agent', label: 'Agent and vetting', Section: AgentSection },
  { key: 'team', label: 'Members', Section: TeamSection },
  { key: 'api-keys', label: 'API keys', Section: ApiKeysSection },
  { key: 'webhooks', label: 'Webhooks', Section: WebhooksSection },
  { key: 'voice', label: 'Voice', Section: VoiceSection },
  { key: 'loads', label: 'Load statuses and views', Section: LoadsSection },
] as const;

/** Settings: one section at a time (/settings/<section>), each showing what the role may change. */
export function SettingsScreen({ section }: { section: string | undefined }) {
  const current = SECTIONS.find((s) => s.key === section) ?? SECTIONS[0];
  const { Section } = current;
  return (
    <section className="settings">
      <h1>Settings</h1>
      <nav aria-label="Settings sections" className="subnav">
        <ul>
          {SECTIONS.map((s) => (
            <li key={s.key}>
              <Link href={`/settings/${s.key}`} aria-current={s.key === current.key ? 'page' : undefined}>
                {s.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <Section />
    </section>
  );
}
