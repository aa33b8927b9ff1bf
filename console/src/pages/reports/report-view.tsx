// Any report, live or from a snapshot, drawn by the view for its type.
import { Time } from '../../time.tsx';
import { ComplianceView } from './compliance.tsx';
import { CostSavingsView } from './cost-savings.tsx';
import { ExecutiveView } from './executive.tsx';
import { ToolEffectivenessView } from './tool-effectiveness.tsx';
import type { AnyReport } from './types.ts';

function Body({ shown }: { shown: AnyReport }) {
  switch (shown.type) {
    case 'executive':
      return <ExecutiveView report={shown.report} />;
    case 'compliance':
      return <ComplianceView report={shown.report} />;
    case 'tool-effectiveness':
      return <ToolEffectivenessView report={shown.report} />;
    case 'cost-savings':
      return <CostSavingsView report={shown.report} />;
  }
}

export function ReportView({ shown }: { shown: AnyReport }) {
  const { period } = shown.report;
  return (
    <div class="report">
      <p class="status report-period">
        <Time iso={period.start} /> to <Time iso={period.end} />
        {shown.type === 'executive' && (
          <>
            , beside <Time iso={shown.report.previous_period.start} /> to <Time iso={shown.report.previous_period.end} />
          </>
        )}
      </p>
      <Body shown={shown} />
    </div>
  );
}
