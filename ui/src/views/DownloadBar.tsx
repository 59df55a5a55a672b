import { useTranslation } from "react-i18next";
import type { DownloadProgress } from "../api";
import { humanSize } from "../models";

/**
 * A download as it goes: a bar, the bytes so far and of how many. `size` is
 * what the download is expected to be when the progress does not say yet.
 */
export function DownloadBar({
  progress,
  size,
  testId,
}: {
  progress: DownloadProgress;
  size?: number | null;
  testId: string;
}) {
  const { t } = useTranslation();
  const total = progress.total ?? size ?? null;
  const pct = total ? Math.min(100, Math.round((progress.done / total) * 100)) : 0;
  return (
    <div className="progress-block">
      <progress max={100} value={pct} data-testid={testId} />
      <span>
        {" "}
        {total ? t("common.sizeOf", { done: humanSize(progress.done), total: humanSize(total) }) : humanSize(progress.done)}
      </span>
    </div>
  );
}
