// world/schema: the typed schema of every world — entity types with attributes, relation types with domain, range,
// cardinality, acyclicity, verbal forms in both directions, and the constraints (dates, capitals) a graph must satisfy.
// It knows nothing of graphs, documents or storage; the generator (world/graph) and checks (tests) read it.
//
// Conventions (other packages rely on them):
// - Placeholders: {s} = the relation's source entity name, {t} = its target entity name; {list} = several names.
// - n-1 / 1-1 relations point from the specific entity to the unique one ("Book written_by Person"), so that
//   `targetPhrases` ("the author of {s}") always describe a unique target given the source. `sourcePhrases` are
//   unique only for 1-1 and 1-n relations.
// - Every forward/inverse sentence contains both {s} and {t} and ends with a full stop.
import type { AttrValue, AttributeSpec, EntityTypeSpec, RelationSpec } from './types'

const year = (name: string, label: string): AttributeSpec => ({ name, kind: 'year', label })
const date = (name: string, label: string): AttributeSpec => ({ name, kind: 'date', label })
const int = (name: string, label: string, unit?: string): AttributeSpec => ({ name, kind: 'int', label, unit })
const float = (name: string, label: string, unit?: string): AttributeSpec => ({ name, kind: 'float', label, unit })
const str = (name: string, label: string): AttributeSpec => ({ name, kind: 'string', label })

export const ENTITY_TYPES: EntityTypeSpec[] = [
  { name: 'Country', noun: 'country', attributes: [year('founded', 'year of independence'), int('population', 'population'), float('area', 'area', 'km²'), str('currency', 'currency')] },
  { name: 'City', noun: 'city', attributes: [year('founded', 'year of foundation'), int('population', 'population'), float('area', 'area', 'km²'), int('elevation', 'elevation', 'm')] },
  { name: 'Person', noun: 'person', attributes: [year('born', 'year of birth'), int('height', 'height', 'cm'), str('occupation', 'occupation')] },
  { name: 'Company', noun: 'company', attributes: [year('founded', 'year of foundation'), float('revenue', 'annual revenue', 'million USD'), int('employees', 'number of employees'), str('industry', 'industry')] },
  { name: 'University', noun: 'university', attributes: [year('founded', 'year of foundation'), int('students', 'number of students'), float('endowment', 'endowment', 'million USD')] },
  { name: 'Book', noun: 'book', attributes: [year('published', 'year of publication'), int('pages', 'number of pages'), str('genre', 'genre')] },
  { name: 'Film', noun: 'film', attributes: [year('released', 'year of release'), int('runtime', 'running time', 'minutes'), float('budget', 'budget', 'million USD'), str('genre', 'genre')] },
  { name: 'Award', noun: 'award', attributes: [year('established', 'year of establishment'), int('prizeMoney', 'prize money', 'USD'), str('field', 'field')] },
  { name: 'SportsTeam', noun: 'sports team', attributes: [year('founded', 'year of foundation'), int('championships', 'number of championships'), str('sport', 'sport')] },
  { name: 'Band', noun: 'band', attributes: [year('formed', 'year of formation'), int('members', 'number of members'), str('genre', 'genre')] },
  { name: 'Album', noun: 'album', attributes: [date('released', 'release date'), int('tracks', 'number of tracks'), int('length', 'length', 'minutes')] },
  { name: 'Stadium', noun: 'stadium', attributes: [date('opened', 'opening date'), int('capacity', 'capacity', 'seats')] },
  { name: 'Museum', noun: 'museum', attributes: [year('opened', 'year of opening'), int('visitors', 'annual visitors'), int('collection', 'collection size', 'objects')] },
]

type Phrasing = Omit<RelationSpec, 'name' | 'domain' | 'range' | 'cardinality' | 'acyclic'>

function rel(name: string, domain: string, range: string, cardinality: RelationSpec['cardinality'], p: Phrasing, acyclic = false): RelationSpec {
  return { name, domain, range, cardinality, ...(acyclic ? { acyclic: true } : {}), ...p }
}

export const RELATIONS: RelationSpec[] = [
  rel('located_in', 'City', 'Country', 'n-1', {
    forward: ['{s} is a city in {t}.', '{s} lies in {t}.', 'The city of {s} is located in {t}.'],
    inverse: ['{t} contains the city of {s}.', 'The city of {s} lies in {t}.', '{s} is one of the cities of {t}.'],
    inverseMany: ['Cities in {t} include {list}.', '{t} contains the cities of {list}.'],
    targetPhrases: ['the country in which {s} is located', 'the country where {s} lies'],
    sourcePhrases: ['a city in {t}'],
    questions: ['In which country is {s} located?', 'Which country is {s} in?'],
    keywords: ['country', 'located in'],
  }),
  rel('capital', 'Country', 'City', '1-1', {
    forward: ['The capital of {s} is {t}.', '{s} has its capital at {t}.', "{s}'s capital city is {t}."],
    inverse: ['{t} is the capital of {s}.', '{t} serves as the capital city of {s}.', '{t} is the seat of government of {s}.'],
    targetPhrases: ['the capital of {s}', 'the capital city of {s}'],
    sourcePhrases: ['the country whose capital is {t}', 'the country governed from {t}'],
    questions: ['What is the capital of {s}?', 'Which city is the capital of {s}?'],
    keywords: ['capital', 'capital city'],
  }),
  rel('born_in', 'Person', 'City', 'n-1', {
    forward: ['{s} was born in {t}.', '{s} is a native of {t}.', 'The birthplace of {s} is {t}.'],
    inverse: ['{s} was born in {t}.', '{t} is the birthplace of {s}.', '{s} is a native of {t}.'],
    inverseMany: ['People born in {t} include {list}.', '{t} is the birthplace of {list}.'],
    targetPhrases: ['the birthplace of {s}', 'the city where {s} was born'],
    sourcePhrases: ['a person born in {t}'],
    questions: ['Where was {s} born?', 'In which city was {s} born?'],
    keywords: ['born', 'birthplace'],
  }),
  rel('citizen_of', 'Person', 'Country', 'n-1', {
    forward: ['{s} is a citizen of {t}.', '{s} holds the citizenship of {t}.', '{s} is a national of {t}.'],
    inverse: ['{s} is a citizen of {t}.', '{t} counts {s} among its citizens.', '{s} holds the citizenship of {t}.'],
    inverseMany: ['Notable citizens of {t} include {list}.', 'Citizens of {t} include {list}.'],
    targetPhrases: ['the country of citizenship of {s}', 'the country of which {s} is a citizen'],
    sourcePhrases: ['a citizen of {t}'],
    questions: ['Of which country is {s} a citizen?', 'What is the nationality of {s}?'],
    keywords: ['citizen', 'nationality', 'citizenship'],
  }),
  rel('educated_at', 'Person', 'University', 'n-1', {
    forward: ['{s} studied at {t}.', '{s} graduated from {t}.', '{s} is an alumnus of {t}.'],
    inverse: ['{s} studied at {t}.', '{t} counts {s} among its alumni.', '{s} graduated from {t}.'],
    inverseMany: ['Alumni of {t} include {list}.', 'Notable graduates of {t} include {list}.'],
    targetPhrases: ['the university where {s} studied', 'the alma mater of {s}'],
    sourcePhrases: ['a graduate of {t}'],
    questions: ['Where did {s} study?', 'Which university did {s} graduate from?'],
    keywords: ['studied', 'alma mater', 'education'],
  }),
  rel('child_of', 'Person', 'Person', 'n-1', {
    forward: ['{s} is a child of {t}.', '{s} is the offspring of {t}.', "{t} is {s}'s parent."],
    inverse: ['{t} is a parent of {s}.', '{s} is a child of {t}.', "{s} is {t}'s child."],
    inverseMany: ['The children of {t} include {list}.', '{t} is the parent of {list}.'],
    targetPhrases: ['the parent of {s}', 'the person whose child is {s}'],
    sourcePhrases: ['a child of {t}'],
    questions: ['Who is the parent of {s}?', "Who is {s}'s parent?"],
    keywords: ['parent', 'child', 'family'],
  }, true),
  rel('influenced_by', 'Person', 'Person', 'n-n', {
    forward: ['{s} was influenced by {t}.', '{s} cited {t} as an influence.', 'The work of {s} shows the influence of {t}.'],
    inverse: ['{t} influenced {s}.', '{t} was an influence on {s}.', '{s} cited {t} as an influence.'],
    inverseMany: ['{t} influenced {list}.', 'People influenced by {t} include {list}.'],
    targetPhrases: ['a person who influenced {s}', 'an influence of {s}'],
    sourcePhrases: ['a person influenced by {t}'],
    questions: ['Who influenced {s}?', 'Who was an influence on {s}?'],
    keywords: ['influenced', 'influence'],
  }, true),
  rel('written_by', 'Book', 'Person', 'n-1', {
    forward: ['{s} was written by {t}.', '{s} is a book by {t}.', 'The author of {s} is {t}.'],
    inverse: ['{t} wrote {s}.', '{t} is the author of {s}.', '{s} was written by {t}.'],
    inverseMany: ['{t} wrote the books {list}.', 'Books by {t} include {list}.'],
    targetPhrases: ['the author of {s}', 'the writer of {s}', 'the person who wrote {s}'],
    sourcePhrases: ['a book written by {t}'],
    questions: ['Who wrote {s}?', 'Who is the author of {s}?'],
    keywords: ['author', 'writer', 'wrote'],
  }),
  rel('published_by', 'Book', 'Company', 'n-1', {
    forward: ['{s} was published by {t}.', '{t} is the publisher of {s}.', '{s} appeared under the imprint of {t}.'],
    inverse: ['{t} published {s}.', '{t} is the publisher of {s}.', '{s} was published by {t}.'],
    inverseMany: ['{t} published the books {list}.', 'Books published by {t} include {list}.'],
    targetPhrases: ['the publisher of {s}', 'the company that published {s}'],
    sourcePhrases: ['a book published by {t}'],
    questions: ['Who published {s}?', 'Which company published {s}?'],
    keywords: ['publisher', 'published'],
  }),
  rel('book_award', 'Book', 'Award', 'n-n', {
    forward: ['{s} received the {t}.', '{s} was honoured with the {t}.', 'The {t} was awarded to {s}.'],
    inverse: ['The {t} was awarded to {s}.', '{s} received the {t}.', 'Recipients of the {t} include the book {s}.'],
    inverseMany: ['Books that received the {t} include {list}.', 'The {t} was awarded to the books {list}.'],
    targetPhrases: ['an award received by {s}', 'a prize won by {s}'],
    sourcePhrases: ['a book that received the {t}'],
    questions: ['Which award did {s} receive?', 'What prize was {s} honoured with?'],
    keywords: ['award', 'prize', 'received'],
  }),
  rel('directed_by', 'Film', 'Person', 'n-1', {
    forward: ['{s} was directed by {t}.', '{s} is a film by director {t}.', 'The director of {s} is {t}.'],
    inverse: ['{t} directed {s}.', '{t} is the director of {s}.', '{s} was directed by {t}.'],
    inverseMany: ['{t} directed the films {list}.', 'Films directed by {t} include {list}.'],
    targetPhrases: ['the director of {s}', 'the person who directed {s}'],
    sourcePhrases: ['a film directed by {t}'],
    questions: ['Who directed {s}?', 'Who is the director of {s}?'],
    keywords: ['director', 'directed'],
  }),
  rel('adapted_from', 'Film', 'Book', '1-1', {
    forward: ['{s} is an adaptation of the book {t}.', '{s} is based on the book {t}.', 'The film {s} was adapted from {t}.'],
    inverse: ['The book {t} was adapted into the film {s}.', '{t} served as the basis for the film {s}.', 'The film {s} is based on {t}.'],
    targetPhrases: ['the book on which {s} is based', 'the book adapted as {s}'],
    sourcePhrases: ['the film adaptation of {t}', 'the film based on {t}'],
    questions: ['Which book is {s} based on?', 'What book was adapted into {s}?'],
    keywords: ['adaptation', 'based on', 'adapted'],
  }),
  rel('produced_by', 'Film', 'Company', 'n-1', {
    forward: ['{s} was produced by {t}.', '{t} produced the film {s}.', 'The production company of {s} is {t}.'],
    inverse: ['{t} produced the film {s}.', '{s} was produced by {t}.', '{t} is the production company behind {s}.'],
    inverseMany: ['{t} produced the films {list}.', 'Films produced by {t} include {list}.'],
    targetPhrases: ['the production company of {s}', 'the company that produced {s}'],
    sourcePhrases: ['a film produced by {t}'],
    questions: ['Which company produced {s}?', 'Who produced {s}?'],
    keywords: ['produced', 'production company', 'studio'],
  }),
  rel('stars', 'Film', 'Person', 'n-n', {
    forward: ['{s} stars {t}.', '{t} appears in {s}.', 'The cast of {s} includes {t}.'],
    inverse: ['{t} starred in {s}.', '{t} appears in the film {s}.', 'The cast of {s} includes {t}.'],
    inverseMany: ['{t} starred in the films {list}.', 'Films starring {t} include {list}.'],
    targetPhrases: ['an actor in {s}', 'a cast member of {s}'],
    sourcePhrases: ['a film starring {t}'],
    questions: ['Who starred in {s}?', 'Which actor appears in {s}?'],
    keywords: ['starring', 'cast', 'actor'],
  }),
  rel('film_award', 'Film', 'Award', 'n-n', {
    forward: ['{s} won the {t}.', '{s} was honoured with the {t}.', 'The {t} went to the film {s}.'],
    inverse: ['The {t} went to the film {s}.', '{s} won the {t}.', 'Films honoured with the {t} include {s}.'],
    inverseMany: ['Films honoured with the {t} include {list}.', 'The {t} went to the films {list}.'],
    targetPhrases: ['an award won by {s}', 'a prize won by the film {s}'],
    sourcePhrases: ['a film that won the {t}'],
    questions: ['Which award did {s} win?', 'What prize did the film {s} win?'],
    keywords: ['award', 'prize', 'won'],
  }),
  rel('founded_by', 'Company', 'Person', 'n-1', {
    forward: ['{s} was founded by {t}.', '{t} founded {s}.', 'The founder of {s} is {t}.'],
    inverse: ['{t} founded {s}.', '{t} is the founder of {s}.', '{s} was founded by {t}.'],
    inverseMany: ['{t} founded the companies {list}.', 'Companies founded by {t} include {list}.'],
    targetPhrases: ['the founder of {s}', 'the person who founded {s}'],
    sourcePhrases: ['a company founded by {t}'],
    questions: ['Who founded {s}?', 'Who is the founder of {s}?'],
    keywords: ['founder', 'founded'],
  }),
  rel('headquartered_in', 'Company', 'City', 'n-1', {
    forward: ['{s} is headquartered in {t}.', 'The headquarters of {s} are in {t}.', '{s} has its head office in {t}.'],
    inverse: ['{t} hosts the headquarters of {s}.', '{s} is headquartered in {t}.', '{s} has its head office in {t}.'],
    inverseMany: ['Companies headquartered in {t} include {list}.', '{t} hosts the headquarters of {list}.'],
    targetPhrases: ['the city where {s} is headquartered', 'the headquarters city of {s}'],
    sourcePhrases: ['a company headquartered in {t}'],
    questions: ['Where is {s} headquartered?', 'In which city are the headquarters of {s}?'],
    keywords: ['headquarters', 'head office', 'headquartered'],
  }),
  rel('subsidiary_of', 'Company', 'Company', 'n-1', {
    forward: ['{s} is a subsidiary of {t}.', '{s} is owned by {t}.', 'The parent company of {s} is {t}.'],
    inverse: ['{t} owns {s}.', '{s} is a subsidiary of {t}.', '{t} is the parent company of {s}.'],
    inverseMany: ['Subsidiaries of {t} include {list}.', '{t} owns the companies {list}.'],
    targetPhrases: ['the parent company of {s}', 'the company that owns {s}'],
    sourcePhrases: ['a subsidiary of {t}'],
    questions: ['What is the parent company of {s}?', 'Which company owns {s}?'],
    keywords: ['subsidiary', 'parent company', 'owned'],
  }, true),
  rel('ceo', 'Company', 'Person', '1-1', {
    forward: ['The chief executive of {s} is {t}.', '{s} is led by chief executive {t}.', '{t} is the CEO of {s}.'],
    inverse: ['{t} is the CEO of {s}.', '{t} serves as chief executive of {s}.', '{t} leads {s} as chief executive.'],
    targetPhrases: ['the CEO of {s}', 'the chief executive of {s}'],
    sourcePhrases: ['the company led by {t}', 'the company whose CEO is {t}'],
    questions: ['Who is the CEO of {s}?', 'Who leads {s}?'],
    keywords: ['CEO', 'chief executive'],
  }),
  rel('university_in', 'University', 'City', 'n-1', {
    forward: ['{s} is located in {t}.', '{s} has its campus in {t}.', 'The campus of {s} lies in {t}.'],
    inverse: ['{t} is home to {s}.', '{s} has its campus in {t}.', 'The university {s} is located in {t}.'],
    inverseMany: ['Universities in {t} include {list}.', '{t} is home to the universities {list}.'],
    targetPhrases: ['the city where {s} is located', 'the home city of {s}'],
    sourcePhrases: ['a university in {t}'],
    questions: ['In which city is {s} located?', 'Where is {s}?'],
    keywords: ['campus', 'located', 'university'],
  }),
  rel('rector', 'University', 'Person', '1-1', {
    forward: ['The rector of {s} is {t}.', '{s} is headed by rector {t}.', '{t} is the rector of {s}.'],
    inverse: ['{t} is the rector of {s}.', '{t} heads {s} as rector.', '{t} serves as rector of {s}.'],
    targetPhrases: ['the rector of {s}', 'the head of {s}'],
    sourcePhrases: ['the university headed by {t}', 'the university whose rector is {t}'],
    questions: ['Who is the rector of {s}?', 'Who heads {s}?'],
    keywords: ['rector', 'head', 'president'],
  }),
  rel('award_country', 'Award', 'Country', 'n-1', {
    forward: ['The {s} is presented in {t}.', 'The {s} is a national award of {t}.', 'The {s} is awarded in {t}.'],
    inverse: ['{t} presents the {s}.', 'The {s} is a national award of {t}.', 'The {s} is presented in {t}.'],
    inverseMany: ['Awards presented in {t} include the {list}.', '{t} presents the awards {list}.'],
    targetPhrases: ['the country that presents the {s}', 'the country where the {s} is awarded'],
    sourcePhrases: ['an award presented in {t}'],
    questions: ['In which country is the {s} presented?', 'Which country awards the {s}?'],
    keywords: ['award', 'presented', 'national'],
  }),
  rel('won_award', 'Person', 'Award', 'n-n', {
    forward: ['{s} won the {t}.', '{s} is a recipient of the {t}.', '{s} was awarded the {t}.'],
    inverse: ['The {t} was awarded to {s}.', '{s} is a recipient of the {t}.', '{s} won the {t}.'],
    inverseMany: ['Recipients of the {t} include {list}.', 'The {t} was awarded to {list}.'],
    targetPhrases: ['an award won by {s}', 'a prize received by {s}'],
    sourcePhrases: ['a recipient of the {t}'],
    questions: ['Which award did {s} win?', 'What prize was awarded to {s}?'],
    keywords: ['award', 'prize', 'won', 'recipient'],
  }),
  rel('team_city', 'SportsTeam', 'City', 'n-1', {
    forward: ['{s} is based in {t}.', '{s} is a sports team from {t}.', 'The home city of {s} is {t}.'],
    inverse: ['{t} is home to the team {s}.', '{s} is based in {t}.', '{s} is a sports team from {t}.'],
    inverseMany: ['Sports teams based in {t} include {list}.', '{t} is home to the teams {list}.'],
    targetPhrases: ['the home city of {s}', 'the city where {s} is based'],
    sourcePhrases: ['a sports team based in {t}'],
    questions: ['Where is {s} based?', 'Which city is {s} from?'],
    keywords: ['based', 'home city', 'team'],
  }),
  rel('home_stadium', 'SportsTeam', 'Stadium', '1-1', {
    forward: ['{s} plays its home games at {t}.', 'The home ground of {s} is {t}.', '{s} plays at {t}.'],
    inverse: ['{t} is the home ground of {s}.', '{s} plays its home games at {t}.', '{t} hosts the home games of {s}.'],
    targetPhrases: ['the home stadium of {s}', 'the home ground of {s}'],
    sourcePhrases: ['the team that plays at {t}', 'the home team of {t}'],
    questions: ['Where does {s} play its home games?', 'What is the home stadium of {s}?'],
    keywords: ['home ground', 'stadium', 'home games'],
  }),
  rel('plays_for', 'Person', 'SportsTeam', 'n-1', {
    forward: ['{s} plays for {t}.', '{s} is a player of {t}.', '{s} is a member of the squad of {t}.'],
    inverse: ['{s} plays for {t}.', 'The squad of {t} includes {s}.', '{s} is a player of {t}.'],
    inverseMany: ['Players of {t} include {list}.', 'The squad of {t} includes {list}.'],
    targetPhrases: ['the team {s} plays for', 'the club of {s}'],
    sourcePhrases: ['a player of {t}'],
    questions: ['Which team does {s} play for?', 'For which team does {s} play?'],
    keywords: ['plays for', 'player', 'squad'],
  }),
  rel('coached_by', 'SportsTeam', 'Person', '1-1', {
    forward: ['{s} is coached by {t}.', 'The head coach of {s} is {t}.', '{t} coaches {s}.'],
    inverse: ['{t} is the head coach of {s}.', '{t} coaches {s}.', '{s} is coached by {t}.'],
    targetPhrases: ['the head coach of {s}', 'the coach of {s}'],
    sourcePhrases: ['the team coached by {t}', 'the team whose head coach is {t}'],
    questions: ['Who coaches {s}?', 'Who is the head coach of {s}?'],
    keywords: ['coach', 'head coach', 'manager'],
  }),
  rel('stadium_in', 'Stadium', 'City', 'n-1', {
    forward: ['{s} is a stadium in {t}.', '{s} is located in {t}.', 'The stadium {s} stands in {t}.'],
    inverse: ['{t} is home to the stadium {s}.', '{s} is a stadium in {t}.', 'The stadium {s} stands in {t}.'],
    inverseMany: ['Stadiums in {t} include {list}.', '{t} is home to the stadiums {list}.'],
    targetPhrases: ['the city where {s} stands', 'the location of {s}'],
    sourcePhrases: ['a stadium in {t}'],
    questions: ['In which city is {s}?', 'Where is the stadium {s} located?'],
    keywords: ['stadium', 'located'],
  }),
  rel('formed_in', 'Band', 'City', 'n-1', {
    forward: ['{s} was formed in {t}.', '{s} is a band from {t}.', 'The band {s} originated in {t}.'],
    inverse: ['The band {s} was formed in {t}.', '{t} is the home town of the band {s}.', '{s} is a band from {t}.'],
    inverseMany: ['Bands formed in {t} include {list}.', '{t} is the home town of the bands {list}.'],
    targetPhrases: ['the city where {s} was formed', 'the home town of {s}'],
    sourcePhrases: ['a band formed in {t}'],
    questions: ['Where was {s} formed?', 'In which city did {s} originate?'],
    keywords: ['formed', 'origin', 'band'],
  }),
  rel('member_of', 'Person', 'Band', 'n-1', {
    forward: ['{s} is a member of {t}.', '{s} plays in the band {t}.', '{s} performs with {t}.'],
    inverse: ['{s} is a member of {t}.', 'The line-up of {t} includes {s}.', '{s} plays in the band {t}.'],
    inverseMany: ['Members of {t} include {list}.', 'The line-up of {t} includes {list}.'],
    targetPhrases: ['the band of {s}', 'the band in which {s} plays'],
    sourcePhrases: ['a member of {t}'],
    questions: ['Which band is {s} a member of?', 'In which band does {s} play?'],
    keywords: ['member', 'band', 'line-up'],
  }),
  rel('recorded_by', 'Album', 'Band', 'n-1', {
    forward: ['{s} is an album by {t}.', '{s} was recorded by {t}.', '{t} released the album {s}.'],
    inverse: ['{t} released the album {s}.', '{s} is an album by {t}.', '{s} was recorded by {t}.'],
    inverseMany: ['Albums by {t} include {list}.', '{t} released the albums {list}.'],
    targetPhrases: ['the band that recorded {s}', 'the artist of {s}'],
    sourcePhrases: ['an album by {t}'],
    questions: ['Which band recorded {s}?', 'Who released the album {s}?'],
    keywords: ['album', 'recorded', 'released'],
  }),
  rel('record_label', 'Album', 'Company', 'n-1', {
    forward: ['{s} was released on the label {t}.', 'The record label of {s} is {t}.', '{t} issued the album {s}.'],
    inverse: ['{t} issued the album {s}.', '{s} was released on the label {t}.', 'The record label of {s} is {t}.'],
    inverseMany: ['Albums issued by {t} include {list}.', '{t} issued the albums {list}.'],
    targetPhrases: ['the record label of {s}', 'the label that issued {s}'],
    sourcePhrases: ['an album issued by {t}'],
    questions: ['On which label was {s} released?', 'Which record label issued {s}?'],
    keywords: ['record label', 'label', 'issued'],
  }),
  rel('museum_in', 'Museum', 'City', 'n-1', {
    forward: ['{s} is a museum in {t}.', '{s} is located in {t}.', 'The museum {s} stands in {t}.'],
    inverse: ['{t} is home to the museum {s}.', '{s} is a museum in {t}.', 'The museum {s} stands in {t}.'],
    inverseMany: ['Museums in {t} include {list}.', '{t} is home to the museums {list}.'],
    targetPhrases: ['the city where {s} is located', 'the home city of the museum {s}'],
    sourcePhrases: ['a museum in {t}'],
    questions: ['In which city is {s}?', 'Where is the museum {s}?'],
    keywords: ['museum', 'located'],
  }),
  rel('museum_founder', 'Museum', 'Person', 'n-1', {
    forward: ['{s} was founded by {t}.', '{t} founded the museum {s}.', 'The founder of {s} is {t}.'],
    inverse: ['{t} founded the museum {s}.', '{t} is the founder of {s}.', '{s} was founded by {t}.'],
    inverseMany: ['{t} founded the museums {list}.', 'Museums founded by {t} include {list}.'],
    targetPhrases: ['the founder of {s}', 'the person who founded {s}'],
    sourcePhrases: ['a museum founded by {t}'],
    questions: ['Who founded {s}?', 'Who is the founder of the museum {s}?'],
    keywords: ['founder', 'founded', 'museum'],
  }),
  rel('mayor', 'City', 'Person', '1-1', {
    forward: ['The mayor of {s} is {t}.', '{s} is governed by mayor {t}.', '{t} is the mayor of {s}.'],
    inverse: ['{t} is the mayor of {s}.', '{t} serves as mayor of {s}.', '{t} governs {s} as mayor.'],
    targetPhrases: ['the mayor of {s}', 'the person who governs {s} as mayor'],
    sourcePhrases: ['the city whose mayor is {t}', 'the city governed by {t}'],
    questions: ['Who is the mayor of {s}?', 'Who governs {s}?'],
    keywords: ['mayor', 'governs'],
  }),
]

/** How the generator uses each relation: coverage = share of domain entities given an edge (n-1, 1-1);
 *  weight = share of the remaining edge budget (n-n). */
export interface RelationPlan {
  coverage?: number
  weight?: number
}

export const RELATION_PLAN: Record<string, RelationPlan> = {
  located_in: { coverage: 1 },
  capital: { coverage: 1 },
  born_in: { coverage: 1 },
  citizen_of: { coverage: 1 },
  educated_at: { coverage: 0.7 },
  child_of: { coverage: 0.35 },
  influenced_by: { weight: 3 },
  written_by: { coverage: 1 },
  published_by: { coverage: 0.85 },
  book_award: { weight: 1 },
  directed_by: { coverage: 1 },
  adapted_from: { coverage: 0.35 },
  produced_by: { coverage: 0.9 },
  stars: { weight: 4 },
  film_award: { weight: 1 },
  founded_by: { coverage: 0.8 },
  headquartered_in: { coverage: 1 },
  subsidiary_of: { coverage: 0.3 },
  ceo: { coverage: 0.6 },
  university_in: { coverage: 1 },
  rector: { coverage: 0.7 },
  award_country: { coverage: 1 },
  won_award: { weight: 2 },
  team_city: { coverage: 1 },
  home_stadium: { coverage: 0.9 },
  plays_for: { coverage: 0.2 },
  coached_by: { coverage: 0.7 },
  stadium_in: { coverage: 1 },
  formed_in: { coverage: 1 },
  member_of: { coverage: 0.2 },
  recorded_by: { coverage: 1 },
  record_label: { coverage: 0.7 },
  museum_in: { coverage: 1 },
  museum_founder: { coverage: 0.5 },
  mayor: { coverage: 0.5 },
}

// ---- lookups -------------------------------------------------------------------------------------------------

const typeByName = new Map(ENTITY_TYPES.map((t) => [t.name, t]))
const relByName = new Map(RELATIONS.map((r) => [r.name, r]))

export function entityType(name: string): EntityTypeSpec | undefined {
  return typeByName.get(name)
}
export function relation(name: string): RelationSpec | undefined {
  return relByName.get(name)
}
export function attributeSpec(type: string, attr: string): AttributeSpec | undefined {
  return typeByName.get(type)?.attributes.find((a) => a.name === attr)
}

/** Source may have at most one edge of this relation. */
export function singleTarget(r: RelationSpec): boolean {
  return r.cardinality === 'n-1' || r.cardinality === '1-1'
}
/** Target may have at most one edge of this relation. */
export function singleSource(r: RelationSpec): boolean {
  return r.cardinality === '1-n' || r.cardinality === '1-1'
}

// ---- constraints ---------------------------------------------------------------------------------------------

export type Attrs = Record<string, AttrValue>

/** The year of a 'year' or 'date' ('YYYY-MM-DD') attribute value. */
export function yearOf(v: AttrValue | undefined): number {
  if (typeof v === 'number') return v
  if (typeof v === 'string') return Number(v.slice(0, 4))
  return NaN
}

/** The year an entity came into being (birth, foundation, publication, release...), or undefined. */
export function startYear(type: string, attrs: Attrs): number | undefined {
  const key = START_ATTR[type]
  return key === undefined ? undefined : yearOf(attrs[key])
}

export const START_ATTR: Record<string, string> = {
  Country: 'founded', City: 'founded', Person: 'born', Company: 'founded', University: 'founded', Book: 'published',
  Film: 'released', Award: 'established', SportsTeam: 'founded', Band: 'formed', Album: 'released', Stadium: 'opened', Museum: 'opened',
}

/** The year the world's "present" is anchored at (people must be adults by then to hold offices). */
export const PRESENT_YEAR = 2025

/**
 * Date coherence of one edge: given the source's and target's attributes, may the edge exist?
 * (People are born before they found, write, direct or win things; parents are older than children...)
 */
export function datesCoherent(relationName: string, s: Attrs, t: Attrs): boolean {
  const sy = (k: string) => yearOf(s[k])
  const ty = (k: string) => yearOf(t[k])
  switch (relationName) {
    case 'written_by': return ty('born') + 18 <= sy('published') && sy('published') <= ty('born') + 90
    case 'directed_by': return ty('born') + 20 <= sy('released') && sy('released') <= ty('born') + 85
    case 'stars': return ty('born') + 6 <= sy('released') && sy('released') <= ty('born') + 90
    case 'founded_by': return ty('born') + 18 <= sy('founded') && sy('founded') <= ty('born') + 80
    case 'museum_founder': return ty('born') + 20 <= sy('opened') && sy('opened') <= ty('born') + 85
    case 'child_of': return ty('born') + 16 <= sy('born') && sy('born') <= ty('born') + 55
    case 'influenced_by': return ty('born') + 5 <= sy('born')
    case 'won_award': return ty('established') <= sy('born') + 70 && sy('born') + 16 <= PRESENT_YEAR
    case 'book_award': return ty('established') <= sy('published')
    case 'film_award': return ty('established') <= sy('released')
    case 'adapted_from': return ty('published') <= sy('released')
    case 'recorded_by': return ty('formed') <= sy('released')
    case 'member_of': return sy('born') + 12 <= ty('formed') + 25 && ty('formed') <= sy('born') + 60
    case 'educated_at': return ty('founded') <= sy('born') + 18 && sy('born') + 18 <= PRESENT_YEAR
    case 'plays_for': return ty('founded') <= sy('born') + 35 && sy('born') + 16 <= PRESENT_YEAR
    case 'ceo': case 'rector': case 'coached_by': case 'mayor': return ty('born') + 30 <= PRESENT_YEAR && ty('born') + 85 >= PRESENT_YEAR
    case 'subsidiary_of': return ty('founded') <= PRESENT_YEAR
    case 'record_label': return ty('founded') <= sy('released')
    case 'published_by': return ty('founded') <= sy('published')
    case 'produced_by': return ty('founded') <= sy('released')
    case 'home_stadium': return ty('opened') <= PRESENT_YEAR
    default: return true
  }
}

/** Award fields a work's prize must have: a book wins literature prizes, a film cinema prizes. */
export const WORK_AWARD_FIELD: Record<string, string> = { book_award: 'literature', film_award: 'cinema' }

/** Coherence of one edge beyond dates: may these two entities be paired by this relation at all? */
export function pairingCoherent(relationName: string, _s: Attrs, t: Attrs): boolean {
  const field = WORK_AWARD_FIELD[relationName]
  return field === undefined || t.field === field
}

/** Structural constraints beyond dates and cardinality, checked by tests and enforced by the generator. */
export const STRUCTURAL_CONSTRAINTS = [
  'a capital is a city located in its country (capital(c, x) ⇒ located_in(x, c))',
  'acyclic relations (child_of, influenced_by, subsidiary_of) form no directed cycle',
  'no self-loops; no duplicate (relation, source, target)',
] as const
