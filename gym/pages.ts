// gym/pages: paged access — a document longer than the observation cap is served in pages cut at paragraph and
// sentence boundaries (a sentence is never split unless it alone exceeds a page), so every sentence of a hub
// document is readable within the cap: access(url) shows page 1 and the page count, access(url, page=k) page k.
// Documents that fit the cap are served exactly as before (one page, no page line).

/** The page line of a multi-page document (also tells text protocols the `#page=k` form). */
export function pageLine(url: string, page: number, pages: number): string {
  return page < pages
    ? `Page ${page} of ${pages}. Read the next with access(url, page=${page + 1}), or open ${url}#page=${page + 1}.`
    : `Page ${page} of ${pages} (the last).`
}

/** The access observation of one page, header included. */
export function renderPage(title: string, url: string, text: string, page: number, pages: number): string {
  return pages <= 1 ? `${title}\nURL: ${url}\n\n${text}` : `${title}\nURL: ${url}\n${pageLine(url, page, pages)}\n\n${text}`
}

/** Split `text` into pages of at most `budget` characters: whole paragraphs, else whole sentences, else hard cuts. */
export function paginate(text: string, budget: number): string[] {
  const b = Math.max(1, Math.floor(budget))
  if (text.length <= b) return [text]
  const units: string[] = []
  for (const para of text.split(/(?<=\n)/)) {
    if (para.length <= b) units.push(para)
    else
      for (const sentence of para.split(/(?<=[.!?]) (?=\S)/).map((s, i, all) => (i < all.length - 1 ? `${s} ` : s)))
        for (let i = 0; i < sentence.length; i += b) units.push(sentence.slice(i, i + b))
  }
  const pages: string[] = []
  let cur = ''
  for (const u of units) {
    if (cur.length + u.length > b && cur.length > 0) {
      pages.push(cur)
      cur = ''
    }
    cur += u
  }
  if (cur.length > 0 || pages.length === 0) pages.push(cur)
  return pages
}

/** Pages of a document under an observation cap: the text budget leaves room for the header and page line. */
export function documentPages(title: string, url: string, text: string, cap: number): string[] {
  if (renderPage(title, url, text, 1, 1).length <= cap) return [text]
  const header = renderPage(title, url, '', 9999, 99999).length
  return paginate(text, Math.max(40, cap - header))
}
