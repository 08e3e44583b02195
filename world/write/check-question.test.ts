// world/write/check-question.test: a rewording keeps the question's names and numbers, adds no name and no answer,
// and stays one question; each way of breaking that is caught.
import { NameIndex } from './check-article'
import { checkQuestion, cleanQuestion } from './check-question'

const names = new NameIndex(['Ana Ruiz', 'The Red Door', 'Toulon', 'Castelfranco'])
const check = (rewritten: string, original = 'In which city was the author of The Red Door born?', answer = 'Toulon') =>
  checkQuestion({ original, rewritten: cleanQuestion(rewritten), answer, aliases: [answer], worldNames: names }).map((p) => p.kind)

test('a faithful rewording passes', () => {
  expect(check('"Where was the person who wrote The Red Door born?"')).toEqual([])
  expect(check('Which is older, Toulon or Castelfranco, by year of foundation?', 'Which was founded earlier: Toulon or Castelfranco?', 'Toulon')).toEqual([])
  expect(check('State the year of birth of the author of The Red Door.', 'Give the year of birth of the author of The Red Door.', '1950')).toEqual([])
})

test.each([
  ['Where was the author of the book born?', 'missing_fact'],
  ['Where was the author of The Red Door, Ana Ruiz, born?', 'invented_entity'],
  ['The author of The Red Door was born in Toulon, right?', 'answer_leak'],
  ['Where was the author of The Red Door born? Answer briefly.', 'format'],
  ['Where was the author of The Red Door born, as of 2020?', 'invented_number'],
])('%s → %s', (rewritten, kind) => {
  expect(check(rewritten)).toContain(kind)
})

test('numbers of the original must stay', () => {
  expect(check('Who wrote a book in 1991?', 'Who wrote a book published in 1990?', 'Ana Ruiz')).toEqual(expect.arrayContaining(['invented_number', 'missing_fact']))
})
