/**
 * The fields the schema extractor knows by meaning: the property names a caller may give one
 * (as keys: lower-case letters and digits), where schema.org entities state it (paths of
 * property keys), which `<meta>` keys and table or list labels carry it, and what kind of value
 * it is. A caller's property that matches none is looked up by its own key in each place.
 */

export type ConceptKind = 'text' | 'url' | 'date' | 'email' | 'phone' | 'enumeration';

export interface Concept {
  readonly id: string;
  readonly aliases: readonly string[];
  readonly paths: readonly (readonly string[])[];
  readonly meta?: readonly string[];
  readonly labels?: readonly string[];
  readonly kind?: ConceptKind;
  /** A page's single `<h1>` states it when no entity does. */
  readonly heading?: boolean;
  /** Found on any thing (a name, an image): alone it does not make an entity the page's subject. */
  readonly generic?: boolean;
  /** Made of a caller's property name that no concept knows. */
  readonly custom?: boolean;
}

export const CONCEPTS = [
  {
    id: 'name',
    aliases: [
      'name',
      'title',
      'headline',
      'productname',
      'producttitle',
      'eventname',
      'recipename',
      'articletitle',
      'organizationname',
      'companyname',
      'businessname',
    ],
    paths: [['headline'], ['name'], ['title']],
    // Not <title>: it carries the site's name more often than not.
    meta: ['ogtitle', 'twittertitle'],
    labels: ['name', 'title'],
    heading: true,
    generic: true,
  },
  {
    id: 'pagetitle',
    aliases: ['pagetitle', 'documenttitle', 'htmltitle', 'metatitle'],
    paths: [],
    meta: ['pagetitle'],
    generic: true,
  },
  {
    id: 'description',
    aliases: ['description', 'summary', 'abstract', 'excerpt', 'intro'],
    paths: [['description'], ['abstract']],
    meta: ['description', 'ogdescription', 'twitterdescription'],
    labels: ['description'],
    generic: true,
  },
  {
    id: 'image',
    aliases: [
      'image',
      'imageurl',
      'images',
      'photo',
      'picture',
      'thumbnail',
      'thumbnailurl',
      'mainimage',
      'ogimage',
    ],
    paths: [['image'], ['thumbnailurl'], ['photo']],
    meta: ['ogimage', 'ogimageurl', 'ogimagesecureurl', 'twitterimage', 'twitterimagesrc'],
    kind: 'url',
    generic: true,
  },
  {
    id: 'url',
    aliases: ['url', 'link', 'href', 'pageurl', 'canonical', 'canonicalurl', 'permalink'],
    paths: [['url'], ['mainentityofpage']],
    meta: ['canonical', 'ogurl'],
    kind: 'url',
    generic: true,
  },
  {
    id: 'price',
    aliases: ['price', 'cost', 'amount', 'priceamount', 'currentprice', 'saleprice', 'lowprice'],
    paths: [
      ['offers', 'price'],
      ['offers', 'lowprice'],
      ['offers', 'pricespecification', 'price'],
      ['price'],
    ],
    meta: ['productpriceamount', 'ogpriceamount'],
    labels: ['price'],
  },
  {
    id: 'currency',
    aliases: ['currency', 'pricecurrency', 'currencycode'],
    paths: [
      ['offers', 'pricecurrency'],
      ['offers', 'pricespecification', 'pricecurrency'],
      ['pricecurrency'],
    ],
    meta: ['productpricecurrency', 'ogpricecurrency'],
    labels: ['currency'],
  },
  {
    id: 'availability',
    aliases: ['availability', 'stock', 'instock', 'stockstatus', 'available', 'isavailable'],
    paths: [['offers', 'availability'], ['availability']],
    meta: ['productavailability', 'ogavailability'],
    labels: ['availability', 'stock'],
    kind: 'enumeration',
  },
  {
    id: 'brand',
    aliases: ['brand', 'brandname', 'manufacturer', 'make'],
    paths: [['brand'], ['manufacturer']],
    meta: ['productbrand', 'ogbrand'],
    labels: ['brand', 'manufacturer'],
  },
  {
    id: 'sku',
    aliases: ['sku', 'productid', 'itemnumber', 'partnumber'],
    paths: [['sku'], ['productid']],
    meta: ['productretaileritemid'],
    labels: ['sku', 'itemnumber', 'partnumber'],
  },
  {
    id: 'mpn',
    aliases: ['mpn', 'modelnumber', 'model'],
    paths: [['mpn'], ['model']],
    labels: ['mpn', 'model', 'modelnumber'],
  },
  {
    id: 'gtin',
    aliases: ['gtin', 'gtin13', 'gtin12', 'gtin14', 'gtin8', 'ean', 'upc', 'barcode'],
    paths: [['gtin13'], ['gtin'], ['gtin12'], ['gtin14'], ['gtin8']],
    labels: ['gtin', 'ean', 'upc'],
  },
  {
    id: 'condition',
    aliases: ['condition', 'itemcondition'],
    paths: [['offers', 'itemcondition'], ['itemcondition']],
    meta: ['productcondition'],
    labels: ['condition'],
    kind: 'enumeration',
  },
  {
    id: 'rating',
    aliases: ['rating', 'ratingvalue', 'averagerating', 'stars', 'score'],
    paths: [['aggregaterating', 'ratingvalue'], ['reviewrating', 'ratingvalue'], ['ratingvalue']],
    labels: ['rating'],
  },
  {
    id: 'reviewcount',
    aliases: ['reviewcount', 'ratingcount', 'reviews', 'numberofreviews', 'numreviews'],
    paths: [['aggregaterating', 'reviewcount'], ['aggregaterating', 'ratingcount'], ['reviewcount']],
  },
  {
    id: 'author',
    aliases: ['author', 'authors', 'authorname', 'writer', 'byline', 'creator'],
    paths: [['author'], ['creator']],
    meta: ['author', 'articleauthor', 'dccreator'],
    labels: ['author', 'by', 'writtenby'],
  },
  {
    id: 'datepublished',
    aliases: [
      'datepublished',
      'published',
      'publisheddate',
      'publishedat',
      'publishedon',
      'publishedtime',
      'publicationdate',
      'pubdate',
      'date',
      'releasedate',
      'uploaddate',
    ],
    paths: [['datepublished'], ['uploaddate'], ['datecreated'], ['releasedate']],
    meta: [
      'articlepublishedtime',
      'datepublished',
      'pubdate',
      'publishdate',
      'dcdateissued',
      'dctermsissued',
    ],
    labels: ['published', 'date', 'releasedate'],
    kind: 'date',
  },
  {
    id: 'datemodified',
    aliases: [
      'datemodified',
      'modified',
      'modifieddate',
      'updated',
      'updatedat',
      'dateupdated',
      'lastmodified',
      'modifiedtime',
    ],
    paths: [['datemodified']],
    meta: ['articlemodifiedtime', 'ogupdatedtime', 'datemodified'],
    labels: ['updated', 'lastupdated', 'modified'],
    kind: 'date',
  },
  {
    id: 'publisher',
    aliases: ['publisher', 'sitename', 'publication', 'source'],
    paths: [['publisher']],
    meta: ['ogsitename', 'applicationname'],
    generic: true,
  },
  {
    id: 'section',
    aliases: ['section', 'articlesection', 'category', 'categories'],
    paths: [['articlesection'], ['recipecategory'], ['category']],
    meta: ['articlesection'],
    labels: ['category', 'section'],
  },
  {
    id: 'keywords',
    aliases: ['keywords', 'tags', 'topics'],
    paths: [['keywords']],
    meta: ['keywords', 'articletag', 'newskeywords'],
    labels: ['tags', 'keywords'],
  },
  {
    id: 'wordcount',
    aliases: ['wordcount', 'words'],
    paths: [['wordcount']],
  },
  {
    id: 'language',
    aliases: ['language', 'inlanguage', 'lang', 'locale'],
    paths: [['inlanguage']],
    meta: ['oglocale', 'contentlanguage'],
    generic: true,
  },
  {
    id: 'startdate',
    aliases: ['startdate', 'start', 'starttime', 'starts', 'startsat', 'eventdate', 'begins', 'when'],
    paths: [['startdate']],
    labels: ['start', 'starts', 'date', 'when', 'startdate'],
    kind: 'date',
  },
  {
    id: 'enddate',
    aliases: ['enddate', 'end', 'endtime', 'ends', 'endsat'],
    paths: [['enddate']],
    labels: ['end', 'ends', 'enddate'],
    kind: 'date',
  },
  {
    id: 'location',
    aliases: ['location', 'venue', 'place', 'venuename', 'where'],
    paths: [['location']],
    labels: ['location', 'venue', 'where', 'place'],
  },
  {
    id: 'organizer',
    aliases: ['organizer', 'organiser', 'host', 'organizedby'],
    paths: [['organizer']],
    labels: ['organizer', 'organiser', 'host'],
  },
  {
    id: 'performer',
    aliases: ['performer', 'performers', 'artist', 'speaker', 'speakers'],
    paths: [['performer']],
    labels: ['performer', 'artist', 'speaker'],
  },
  {
    id: 'eventstatus',
    aliases: ['eventstatus', 'status'],
    paths: [['eventstatus']],
    kind: 'enumeration',
  },
  {
    id: 'attendancemode',
    aliases: ['attendancemode', 'eventattendancemode'],
    paths: [['eventattendancemode']],
    kind: 'enumeration',
  },
  {
    id: 'address',
    aliases: ['address', 'fulladdress', 'postaladdress', 'streetaddress', 'street'],
    paths: [['address'], ['location', 'address']],
    labels: ['address', 'streetaddress'],
  },
  {
    id: 'city',
    aliases: ['city', 'locality', 'addresslocality', 'town'],
    paths: [['address', 'addresslocality'], ['location', 'address', 'addresslocality'], ['addresslocality']],
    labels: ['city', 'town'],
  },
  {
    id: 'region',
    aliases: ['region', 'state', 'province', 'addressregion'],
    paths: [['address', 'addressregion'], ['location', 'address', 'addressregion'], ['addressregion']],
    labels: ['region', 'state', 'province'],
  },
  {
    id: 'postalcode',
    aliases: ['postalcode', 'zip', 'zipcode', 'postcode'],
    paths: [['address', 'postalcode'], ['location', 'address', 'postalcode'], ['postalcode']],
    labels: ['postalcode', 'zip', 'zipcode', 'postcode'],
  },
  {
    id: 'country',
    aliases: ['country', 'addresscountry', 'countrycode'],
    paths: [['address', 'addresscountry'], ['location', 'address', 'addresscountry'], ['addresscountry']],
    labels: ['country'],
  },
  {
    id: 'email',
    aliases: ['email', 'emails', 'emailaddress', 'emailaddresses', 'mail', 'contactemail'],
    paths: [['email'], ['contactpoint', 'email']],
    labels: ['email', 'emailaddress', 'mail'],
    kind: 'email',
  },
  {
    id: 'phone',
    aliases: ['phone', 'phones', 'telephone', 'phonenumber', 'phonenumbers', 'tel', 'contactphone'],
    paths: [['telephone'], ['contactpoint', 'telephone']],
    labels: ['phone', 'telephone', 'tel'],
    kind: 'phone',
  },
  {
    id: 'logo',
    aliases: ['logo', 'logourl'],
    paths: [['logo']],
    kind: 'url',
  },
  {
    id: 'sameas',
    aliases: ['sameas', 'sociallinks', 'socialprofiles', 'profiles', 'social'],
    paths: [['sameas']],
    kind: 'url',
  },
  {
    id: 'foundingdate',
    aliases: ['foundingdate', 'founded', 'foundedin', 'yearfounded'],
    paths: [['foundingdate']],
    labels: ['founded'],
  },
  {
    id: 'founder',
    aliases: ['founder', 'founders', 'foundedby'],
    paths: [['founder'], ['founders']],
    labels: ['founder', 'founders'],
  },
  {
    id: 'employees',
    aliases: ['employees', 'numberofemployees', 'employeecount', 'headcount'],
    paths: [['numberofemployees', 'value'], ['numberofemployees']],
    labels: ['employees'],
  },
  {
    id: 'ingredients',
    aliases: ['ingredients', 'recipeingredient', 'recipeingredients', 'ingredient'],
    paths: [['recipeingredient'], ['ingredients']],
  },
  {
    id: 'instructions',
    aliases: ['instructions', 'recipeinstructions', 'steps', 'method', 'directions'],
    paths: [['recipeinstructions']],
  },
  {
    id: 'preptime',
    aliases: ['preptime', 'preparationtime'],
    paths: [['preptime']],
    labels: ['preptime', 'prep'],
  },
  {
    id: 'cooktime',
    aliases: ['cooktime', 'cookingtime'],
    paths: [['cooktime']],
    labels: ['cooktime', 'cook'],
  },
  {
    id: 'totaltime',
    aliases: ['totaltime', 'duration', 'time'],
    paths: [['totaltime']],
    labels: ['totaltime', 'total'],
  },
  {
    id: 'yield',
    aliases: ['yield', 'recipeyield', 'servings', 'serves'],
    paths: [['recipeyield']],
    labels: ['servings', 'serves', 'yield'],
  },
  {
    id: 'calories',
    aliases: ['calories', 'kcal', 'energy'],
    paths: [['nutrition', 'calories']],
    labels: ['calories'],
  },
  {
    id: 'cuisine',
    aliases: ['cuisine', 'recipecuisine'],
    paths: [['recipecuisine']],
    labels: ['cuisine'],
  },
  {
    id: 'items',
    aliases: ['items', 'products', 'entries', 'results', 'listings', 'itemlistelement'],
    paths: [['itemlistelement']],
  },
] as const satisfies readonly Concept[];

const BY_ALIAS: ReadonlyMap<string, Concept> = new Map(
  (CONCEPTS as readonly Concept[]).flatMap((concept) =>
    concept.aliases.map((alias) => [alias, concept] as const),
  ),
);

/** The concept a property key names, if one does. */
export function knownConcept(key: string): Concept | undefined {
  return BY_ALIAS.get(key);
}

/** The concept a property key names, or one made of the key itself. */
export function conceptOf(key: string): Concept {
  return (
    BY_ALIAS.get(key) ?? {
      id: key,
      aliases: [key],
      paths: [[key]],
      meta: [key, `og${key}`],
      labels: [key],
      custom: true,
    }
  );
}
