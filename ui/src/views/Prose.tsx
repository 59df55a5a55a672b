// Narration as Markdown, safely: raw HTML is shown as text, links are plain
// text (the window never navigates away from the story), and images are
// their alt text (nothing is fetched from outside).

import Markdown from "markdown-to-jsx/react";
import type { ReactNode } from "react";

function PlainLink({ children, href }: { children?: ReactNode; href?: string }) {
  return (
    <span className="md-link" title={href}>
      {children}
    </span>
  );
}

function AltText({ alt }: { alt?: string }) {
  return alt ? <span className="md-image">[{alt}]</span> : null;
}

const OPTIONS = {
  disableParsingRawHTML: true,
  disableAutoLink: true,
  tagfilter: true,
  overrides: {
    a: { component: PlainLink },
    img: { component: AltText },
  },
} as const;

/** `text` as sanitised Markdown inside a div with `className`. */
export function Prose({ text, className, testId }: { text: string; className?: string; testId?: string }) {
  return (
    <div className={className ? `prose ${className}` : "prose"} data-testid={testId}>
      <Markdown options={OPTIONS}>{text}</Markdown>
    </div>
  );
}
