// The table page: everything it shows comes from GET /api/state, refreshed on every event the
// launcher-web WebSocket relays; every action is one POST with the join code (docs/web.md).
// No framework and no build step: the page must work on a Pi with no internet at all.
"use strict";

const $ = (selector) => document.querySelector(selector);
const COLORS = ["red", "yellow", "green", "blue"];
const CODE_KEY = "card-launcher-join-code";
const LANG_KEY = "card-launcher-lang";
const LANGS = ["en", "fr"];

// The page's own texts in each language: labels of index.html (by data-i18n key) and the sentences
// this script builds from the game's status. Texts launcherd says (messages, refusals, advice) come
// from launcher-web already in the reader's language (docs/web.md).
const TEXTS = {
  en: {
    title: "Card launcher: the table", heading: "Card launcher", language: "Language", connecting: "⟳ connecting…",
    tableView: "Table display", phoneView: "Phone view", dismiss: "Dismiss", repair: "Repair the game log",
    launcher: "Launcher", hopperCards: "Cards now in the hopper", reloaded: "Reloaded", goOn: "Go on", resetLauncher: "Reset", players: "Players",
    player: "Player", owes: "Owes", cards: "Cards", presses: "Presses", score: "Score", play: "Play",
    joinCode: "Join code", codeDigits: "8 digits", useCode: "Use code",
    firstAttack: "Name the colour and the player to attack", lastCard: "it is the player's last card",
    pressSim: "Press the button (simulation)", uno: "Uno!", hintPenalty: "Advice penalty…", undo: "Undo last action",
    endRound: "End of round: enter the hands", winner: "Winner", handsHelp: "Tap + card for each card left in a hand, or type its points (37) or its cards (7, hit-2, wild).",
    scoreRound: "Score the round", scores: "Scores", csv: "Download the scores (CSV)", stats: "Match statistics",
    newGame: "New game", newPlayers: "Players, in seat order (clockwise), separated by commas", rules: "Rules",
    scoring: "Scoring", target: "Target", force: "set the running match aside (it stays resumable)", start: "Start the game",
    happened: "What happened", join: "Join from a phone", qrShow: "Show the QR code (needs the join code)",
    qrAlt: "QR code of this page's address with the join code", cancel: "Cancel",
    live: "● live", reconnectingLauncher: "⟳ reconnecting to the launcher…", reconnectingWeb: "⟳ reconnecting to launcher-web…",
    notReachable: "⟳ not reachable: the launcher is restarting; this page catches up by itself",
    untilCards: "until cards", uno_reason: "Uno penalty", hint_reason: "advice penalty",
    firstCard: "the card turned up", lastCardAttack: "last-card attack: those cards count in the score",
    damage: (what, todo) => `⚠ game log: ${what} · what to do: ${todo}`,
    gameStarting: (why) => `… the game is starting${why ? `: ${why}` : ""}`,
    gameDown: (why) => `⚠ the game is not available${why ? `: ${why}` : ""}; the launcher still works`,
    noGame: "No game", startOne: "start one under New game",
    roundLine: (round, ruleset, dealer) => `Round ${round} · ${ruleset} · dealer ${dealer}`,
    clockwise: "↻ play goes clockwise", counterclockwise: "↺ play goes counterclockwise", and: " and ",
    winsMatch: "wins the match", pressesUntil: "presses until cards come out", owesPresses: (n) => `owes ${count(n, "press")}`,
    orStacks: " or stacks a Hit card", wonRound: (winner, round) => `${winner} won round ${round}`,
    enterHands: "enter the hands under End of round", namesAttack: "names a colour and a player to attack",
    playsOrPresses: "plays a card or presses",
    chain: (c) => `⚡ Mega Hit: ${count(c.hits, "hit")} on ${c.target} (started by ${c.started_by}, ${count(c.stacks, "card")} stacked on it)`,
    chainOpen: (c) => `⚡ Mega Hit open: ${c.target} presses ${c.hits} or stacks a Hit card`,
    catchable: (p) => `${p} did not call Uno: on their last card, catch them below`,
    noPress: "No press yet", took: (p, n) => `${p} took ${count(n, "card")}`, pressedNothing: (p) => `${p} pressed: nothing came out`,
    hopperUnknown: "hopper: unknown", holds: (n) => `the launcher holds about ${count(n, "card")}`,
    reloadNow: "⚠ Reload: shuffle the discard pile (all but its top card) into the hopper",
    catchButton: (p) => `Catch ${p} (no Uno)`, hand: (n) => `${n}'s hand `, handPlaceholder: "points, or cards: 7, hit-2, wild",
    noMatch: "no match yet", scoresLine: (s, t) => `${s} scoring, target ${t}`, next: (r, d) => ` · next: round ${r}, dealer ${d}`,
    round: "Round", total: "Total", matchWinner: (w) => `🏆 Winner: ${w}`,
    cardsTaken: "Cards taken", biggestBurst: "Biggest burst", dryStreak: "Longest dry streak", hitsSent: "Hits sent",
    hitsReceived: "Hits received", roundsWon: "Rounds won", matches: "Matches", matchesWon: "Matches won",
    statsUnavailable: (e) => `statistics unavailable: ${e}`, match: (id) => `Match ${id}`,
    burstFact: (p, n) => `Biggest burst: ${p}, ${count(n, "card")}`, dryFact: (p, n) => `Longest dry streak: ${p}, ${count(n, "press")}`,
    megaFact: (c) => `Longest Mega Hit: ${count(c.hits, "hit")} in ${count(c.cards, "card")}, started by ${c.started_by}, pressed by ${c.pressed_by}`,
    minutesPerRound: "Minutes per round", secondsPerRound: "Seconds per round", roundN: (r) => `Round ${r}`,
    allMatches: (m, r) => `All matches: ${m}, rounds: ${r}`, whichColour: (card) => `${card}: which colour?`,
    whichPlayer: (card) => `${card}: which player?`, whoUno: "Who calls Uno?", whoAdvice: "Who gave advice?",
    firstAttackColour: "The turned-up Wild Attack-Attack: which colour?", whoAttacked: "Which player is attacked?",
    codeAccepted: "✔ code accepted", wrongCode: "✖ wrong code", refused: (m) => `✖ Refused: ${m}`,
    codeChanged: "The table's join code changed: enter the new one", box2023: " (the 2023 box)",
    press: ["press", "presses"], card: ["card", "cards"], hit: ["hit", "hits"],
    // The "what now" of each moment, and the controls it offers (issue #24).
    reloadSummary: "Reload the hopper", proposed: (n) => `The game proposes ${count(n, "card")}: the deck less the hands and the pile's top card.`,
    setAside: "Matches set aside", resume: "Resume", abandon: "Set this match aside", abandonSure: "Set this match aside? It stays resumable.",
    yesAbandon: "Yes, set it aside", matchEntry: (m) => `Match ${m.id} · ${(TEXTS.en.rulesetName)[m.rules] || m.rules} · ${m.players.join(", ")} · ${count(m.rounds || 0, "rounds")}`,
    draw: "Draw a card", pass: "Keep it, pass", accept: (p) => `${p} accepts 4 cards`, challenge: (p, who) => `${p} challenges ${who}`,
    legal: (p) => `The Wild Draw Four was legal (${p} takes 6)`, illegal: (who) => `It was illegal (${who} takes 4)`,
    minionsHelp: "Wild Mega Minions Power: how many cards did each player discard?", minionsGo: "Deal the Minions' cards",
    turnUp: "Turn up the first card (the launcher deals it)", turnUpByHand: "Say which card was turned up first", whichFirst: "Which card was turned up?", told: "Say which card it is",
    insertSafe: (p) => `${p} inserted: safe`, insertBlast: (p) => `${p} inserted: it blasted`, howMany: "How many cards came out?",
    slot: (n, full) => `slot ${n}: ${full ? "card in" : "empty"}`, blasterLast: (last) => last.outcome === "blast" ? `the blaster: a card in slot ${last.slot}, it blasted ${count(last.cards || 0, "card")}` : `the blaster: a card in slot ${last.slot}, safe`,
    nowDealer: (p) => `${p}: play a card, or draw one`, nowDrawn: (p) => `${p}: play the card drawn, or pass`,
    nowChallenge: (p, who) => `${p}: accept 4 cards, or challenge ${who}`, nowResult: (p, who) => `${who} shows the hand to ${p}: was the Wild Draw Four legal?`,
    nowMinions: (p) => `${p}: Wild Mega Minions, enter what each other player discarded`, nowDealt: (n) => `is dealt ${count(n, "card")} by the launcher`,
    nowTurnUp: "turn up the first card, or play a card", nowBlast: (p) => `${p}: play a card, or insert one in the blaster`,
    nowInserts: (n) => n === null ? "inserts until the blast" : `inserts ${n}`, nowWait: "wait: the launcher is dealing",
    nowNoGame: "start a game: New game is just below", colourNamed: (c) => `colour named: ${c}`, colourPile: (c) => `colour: ${c}`, said: (m) => `✔ ${m}`,
    tableNeedsCode: "Enter the join code once (Phone view, then Join code): this display then shows it with its QR code.",
    done: "✔ done", pressed: "the button was pressed",
    chainOver: (first, itself, turn) => `⚡ Mega Hit over: play resumes ${itself ? "with the first attacker" : "after the first attacker"}, ${first}: ${turn} plays`, addCard: "+ card", clearHand: "clear", whichCard: (n) => `${n}: which card?`,
    rounds: ["round", "rounds"],
    scoringName: { standard: "Standard", lowest: "Fewest points win", elimination: "Elimination" },
    scoringDoc: { standard: "The round's winner scores the points left in the other players' hands; the first to reach the target wins.",
      lowest: "Each player scores the points left in their own hand; once anyone reaches the target, the fewest points win.",
      elimination: "Whoever reaches the target leaves the table, until two remain; their next round decides the match." },
    optionsHelp: "Options", rulesetDoc: {
      "attack-mega-hit": "UNO Attack Mega Hit (2023): Hit cards make the next player press the launcher's button.",
      "attack-2005": "UNO Attack (2005): the first box, with Hit and Hit-Fire cards.",
      "attack-2010": "UNO Attack (2010): the second box, with Wild Attack-Attack.",
      classic: "Classic UNO: the launcher deals every card, one at a time.",
      "despicable-me-4": "UNO Despicable Me 4: classic UNO with Minions colours and Wild Mega Minions Power.",
      blast: "UNO Blast: cards go into the blaster, which fires now and then.",
    },
    rulesetName: { "attack-mega-hit": "UNO Attack Mega Hit", "attack-2005": "UNO Attack (2005)", "attack-2010": "UNO Attack (2010)",
      classic: "Classic UNO", "despicable-me-4": "UNO Despicable Me 4", blast: "UNO Blast" },
    options: {
      early_stop: ["Stop pressing once cards come out", { true: "yes", false: "no: press every time owed" },
        "yes: a player told to press several times stops at the first press that gives cards; no: every press owed is pressed."],
      resume: ["After a Mega Hit chain, play goes on with", { after_first_attacker: "the one after the first attacker", first_attacker: "the first attacker" },
        "Who plays next once a Mega Hit chain is over."],
      deal_pause_s: ["Seconds between two players' piles", null, "When dealing, the launcher waits this long before the next player's cards."],
      deal_pause: ["Between two players' piles, wait for", { timer: "the seconds above", press: "a press of the button" },
        "How the launcher knows the next player is ready for their cards."],
      last_card_draws: ["A last card Draw Two / Wild Draw Four still deals", { true: "yes, and they count", false: "no, the round ends" },
        "Whether a round won on a Draw card still makes the next player take the cards."],
    },
  },
  fr: {
    title: "Lanceur de cartes : la table", heading: "Lanceur de cartes", language: "Langue", connecting: "⟳ connexion…",
    tableView: "Affichage table", phoneView: "Vue téléphone", dismiss: "Fermer", repair: "Réparer le journal de partie",
    launcher: "Lanceur", hopperCards: "Cartes dans le réservoir", reloaded: "Rechargé", goOn: "Continuer", resetLauncher: "Réinitialiser", players: "Joueurs",
    player: "Joueur", owes: "Doit", cards: "Cartes", presses: "Appuis", score: "Score", play: "Jouer",
    joinCode: "Code de la table", codeDigits: "8 chiffres", useCode: "Valider le code",
    firstAttack: "Nommer la couleur et le joueur à attaquer", lastCard: "c'est la dernière carte du joueur",
    pressSim: "Appuyer sur le bouton (simulation)", uno: "Uno !", hintPenalty: "Pénalité de conseil…",
    undo: "Annuler la dernière action", endRound: "Fin de manche : saisir les mains", winner: "Gagnant",
    handsHelp: "Touchez + carte pour chaque carte restée dans une main, ou tapez ses points (37) ou ses cartes (7, Appuyer 2 fois, Carte blanche).",
    scoreRound: "Compter la manche", scores: "Scores", csv: "Télécharger les scores (CSV)", stats: "Statistiques de la partie",
    newGame: "Nouvelle partie", newPlayers: "Joueurs, dans l'ordre des places (sens horaire), séparés par des virgules",
    rules: "Règles", scoring: "Décompte", target: "Objectif", force: "mettre de côté la partie en cours (elle pourra reprendre)",
    start: "Lancer la partie", happened: "Ce qui s'est passé", join: "Rejoindre depuis un téléphone",
    qrShow: "Afficher le QR code (demande le code de la table)", qrAlt: "QR code de l'adresse de cette page avec le code de la table",
    cancel: "Annuler", live: "● en direct", reconnectingLauncher: "⟳ reconnexion au lanceur…",
    reconnectingWeb: "⟳ reconnexion à launcher-web…",
    notReachable: "⟳ injoignable : le lanceur redémarre ; cette page se remet à jour d'elle-même",
    untilCards: "jusqu'aux cartes", uno_reason: "pénalité Uno", hint_reason: "pénalité de conseil",
    firstCard: "la carte retournée", lastCardAttack: "attaque sur la dernière carte : ces cartes comptent dans le score",
    damage: (what, todo) => `⚠ journal de partie : ${what} · que faire : ${todo}`,
    gameStarting: (why) => `… le jeu démarre${why ? ` : ${why}` : ""}`,
    gameDown: (why) => `⚠ le jeu n'est pas disponible${why ? ` : ${why}` : ""} ; le lanceur fonctionne toujours`,
    noGame: "Pas de partie", startOne: "lancez-en une sous Nouvelle partie",
    roundLine: (round, ruleset, dealer) => `Manche ${round} · ${ruleset} · ${dealer} distribue`,
    clockwise: "↻ le jeu tourne dans le sens des aiguilles d'une montre",
    counterclockwise: "↺ le jeu tourne dans le sens inverse des aiguilles d'une montre", and: " et ",
    winsMatch: "gagne la partie", pressesUntil: "appuie jusqu'à ce que des cartes sortent",
    owesPresses: (n) => `doit ${count(n, "press")}`, orStacks: " ou pose une carte Appuyer",
    wonRound: (winner, round) => `${winner} a gagné la manche ${round}`, enterHands: "saisissez les mains sous Fin de manche",
    namesAttack: "nomme une couleur et un joueur à attaquer", playsOrPresses: "joue une carte ou appuie",
    chain: (c) => `⚡ Méga appuyer : ${count(c.hits, "hit")} sur ${c.target} (lancé par ${c.started_by}, ${count(c.stacks, "card")} posée${c.stacks > 1 ? "s" : ""} dessus)`,
    chainOpen: (c) => `⚡ Méga appuyer ouvert : ${c.target} appuie ${c.hits} fois ou pose une carte Appuyer`,
    catchable: (p) => `${p} n'a pas dit Uno : sur sa dernière carte, attrapez ce joueur ci-dessous`,
    noPress: "Pas encore d'appui", took: (p, n) => `${p} a pris ${count(n, "card")}`,
    pressedNothing: (p) => `${p} a appuyé : rien n'est sorti`, hopperUnknown: "réservoir : inconnu",
    holds: (n) => `le lanceur contient environ ${count(n, "card")}`,
    reloadNow: "⚠ Rechargez : mélangez la défausse (sauf sa carte du dessus) dans le réservoir",
    catchButton: (p) => `Attraper ${p} (pas de Uno)`, hand: (n) => `Main de ${n} `,
    handPlaceholder: "points, ou cartes : 7, Appuyer 2 fois, Carte blanche",
    noMatch: "pas encore de partie", scoresLine: (s, t) => `décompte ${s}, objectif ${t}`,
    next: (r, d) => ` · ensuite : manche ${r}, ${d} distribue`, round: "Manche", total: "Total",
    matchWinner: (w) => `🏆 Gagnant : ${w}`, cardsTaken: "Cartes prises", biggestBurst: "Plus grosse rafale",
    dryStreak: "Plus longue série à vide", hitsSent: "Appuis envoyés", hitsReceived: "Appuis reçus",
    roundsWon: "Manches gagnées", matches: "Parties", matchesWon: "Parties gagnées",
    statsUnavailable: (e) => `statistiques indisponibles : ${e}`, match: (id) => `Partie ${id}`,
    burstFact: (p, n) => `Plus grosse rafale : ${p}, ${count(n, "card")}`,
    dryFact: (p, n) => `Plus longue série à vide : ${p}, ${count(n, "press")}`,
    megaFact: (c) => `Plus long Méga appuyer : ${count(c.hits, "hit")} en ${count(c.cards, "card")}, lancé par ${c.started_by}, encaissé par ${c.pressed_by}`,
    minutesPerRound: "Minutes par manche", secondsPerRound: "Secondes par manche", roundN: (r) => `Manche ${r}`,
    allMatches: (m, r) => `Toutes les parties : ${m}, manches : ${r}`, whichColour: (card) => `${card} : quelle couleur ?`,
    whichPlayer: (card) => `${card} : quel joueur ?`, whoUno: "Qui dit Uno ?", whoAdvice: "Qui a donné un conseil ?",
    firstAttackColour: "La Double attaque retournée : quelle couleur ?", whoAttacked: "Quel joueur est attaqué ?",
    codeAccepted: "✔ code accepté", wrongCode: "✖ mauvais code", refused: (m) => `✖ Refusé : ${m}`,
    codeChanged: "Le code de la table a changé : saisissez le nouveau", box2023: " (la boîte 2023)",
    press: ["appui", "appuis"], card: ["carte", "cartes"], hit: ["appui", "appuis"],
    reloadSummary: "Recharger le réservoir", proposed: (n) => `Le jeu propose ${count(n, "card")} : le paquet moins les mains et la carte du dessus de la défausse.`,
    setAside: "Parties mises de côté", resume: "Reprendre", abandon: "Mettre cette partie de côté", abandonSure: "Mettre cette partie de côté ? Elle pourra reprendre.",
    yesAbandon: "Oui, la mettre de côté", matchEntry: (m) => `Partie ${m.id} · ${(TEXTS.fr.rulesetName)[m.rules] || m.rules} · ${m.players.join(", ")} · ${count(m.rounds || 0, "rounds")}`,
    draw: "Piocher une carte", pass: "La garder, passer", accept: (p) => `${p} accepte 4 cartes`, challenge: (p, who) => `${p} conteste ${who}`,
    legal: (p) => `Le +4 était permis (${p} prend 6)`, illegal: (who) => `Il ne l'était pas (${who} prend 4)`,
    minionsHelp: "Super Minions : combien de cartes chaque joueur a-t-il défaussées ?", minionsGo: "Distribuer les cartes des Minions",
    turnUp: "Retourner la première carte (le lanceur la donne)", turnUpByHand: "Dire quelle carte a été retournée en premier", whichFirst: "Quelle carte a été retournée ?", told: "Dire quelle carte c'est",
    insertSafe: (p) => `${p} a inséré : rien`, insertBlast: (p) => `${p} a inséré : ça a tiré`, howMany: "Combien de cartes sont sorties ?",
    slot: (n, full) => `fente ${n} : ${full ? "carte dedans" : "vide"}`, blasterLast: (last) => last.outcome === "blast" ? `le blaster : une carte dans la fente ${last.slot}, il a tiré ${count(last.cards || 0, "card")}` : `le blaster : une carte dans la fente ${last.slot}, rien`,
    nowDealer: (p) => `${p} : jouer une carte, ou en piocher une`, nowDrawn: (p) => `${p} : jouer la carte piochée, ou passer`,
    nowChallenge: (p, who) => `${p} : accepter 4 cartes, ou contester ${who}`, nowResult: (p, who) => `${who} montre sa main à ${p} : le +4 était-il permis ?`,
    nowMinions: (p) => `${p} : Super Minions, saisir ce que chaque autre joueur a défaussé`, nowDealt: (n) => `reçoit ${count(n, "card")} du lanceur`,
    nowTurnUp: "retourner la première carte, ou jouer une carte", nowBlast: (p) => `${p} : jouer une carte, ou en insérer une dans le blaster`,
    nowInserts: (n) => n === null ? "insère jusqu'au tir" : `insère ${n} fois`, nowWait: "attendez : le lanceur distribue",
    nowNoGame: "lancez une partie : Nouvelle partie est juste en dessous", colourNamed: (c) => `couleur demandée : ${c}`, colourPile: (c) => `couleur : ${c}`, said: (m) => `✔ ${m}`,
    tableNeedsCode: "Saisissez le code de la table une fois (Vue téléphone, puis Code de la table) : cet affichage le montre alors avec son QR code.",
    done: "✔ fait", pressed: "le bouton a été pressé",
    chainOver: (first, itself, turn) => `⚡ Méga appuyer fini : le jeu reprend ${itself ? "avec le premier attaquant" : "après le premier attaquant"}, ${first} : ${turn} joue`, addCard: "+ carte", clearHand: "effacer", whichCard: (n) => `${n} : quelle carte ?`,
    rounds: ["manche", "manches"],
    scoringName: { standard: "Standard", lowest: "Le moins de points gagne", elimination: "Élimination" },
    scoringDoc: { standard: "Le gagnant de la manche marque les points restés dans les mains des autres ; le premier à l'objectif gagne.",
      lowest: "Chacun marque les points restés dans sa propre main ; dès que quelqu'un atteint l'objectif, le moins de points gagne.",
      elimination: "Qui atteint l'objectif quitte la table, jusqu'à ce qu'il en reste deux ; leur manche suivante décide de la partie." },
    optionsHelp: "Options", rulesetDoc: {
      "attack-mega-hit": "UNO Attack Méga appuyer (2023) : les cartes Appuyer font appuyer le joueur suivant sur le bouton du lanceur.",
      "attack-2005": "UNO Attack (2005) : la première boîte, avec les cartes Appuyer et Appuyer jusqu'au tir.",
      "attack-2010": "UNO Attack (2010) : la deuxième boîte, avec la Double attaque.",
      classic: "UNO classique : le lanceur distribue chaque carte, une à une.",
      "despicable-me-4": "UNO Moi, moche et méchant 4 : UNO classique aux couleurs des Minions, avec la carte Super Minions.",
      blast: "UNO Blast : les cartes vont dans le blaster, qui tire de temps en temps.",
    },
    rulesetName: { "attack-mega-hit": "UNO Attack Méga appuyer", "attack-2005": "UNO Attack (2005)", "attack-2010": "UNO Attack (2010)",
      classic: "UNO classique", "despicable-me-4": "UNO Moi, moche et méchant 4", blast: "UNO Blast" },
    options: {
      early_stop: ["Arrêter d'appuyer dès que des cartes sortent", { true: "oui", false: "non : appuyer autant que dû" },
        "oui : un joueur qui doit appuyer plusieurs fois s'arrête au premier appui qui donne des cartes ; non : il appuie autant que dû."],
      resume: ["Après un Méga appuyer, le jeu reprend avec", { after_first_attacker: "celui après le premier attaquant", first_attacker: "le premier attaquant" },
        "Qui joue une fois la chaîne de Méga appuyer finie."],
      deal_pause_s: ["Secondes entre les piles de deux joueurs", null, "En distribuant, le lanceur attend autant avant les cartes du joueur suivant."],
      deal_pause: ["Entre les piles de deux joueurs, attendre", { timer: "les secondes ci-dessus", press: "un appui sur le bouton" },
        "Comment le lanceur sait que le joueur suivant est prêt pour ses cartes."],
      last_card_draws: ["Un +2 / +4 en dernière carte fait encore prendre les cartes", { true: "oui, et elles comptent", false: "non, la manche finit" },
        "Si une manche gagnée sur un +2 ou un +4 fait quand même prendre les cartes au joueur suivant."],
    },
  },
};

let lang = "en";        // the language the page is shown in
let words = null;       // GET /api/words: card and colour names in that language

// The reader's own choice, if any: it goes with every request; without it the browser's
// Accept-Language does, and launcher-web answers in the language it chose (state.lang).
function chosenLang() {
  const chosen = localStorage.getItem(LANG_KEY);
  return LANGS.includes(chosen) ? chosen : null;
}

function browserLang() {
  const found = (navigator.languages || [navigator.language]).map((l) => String(l).slice(0, 2)).find((l) => LANGS.includes(l));
  return found || "en";
}

function t(key, ...args) {
  const text = TEXTS[lang][key] ?? TEXTS.en[key];
  return typeof text === "function" ? text(...args) : text;
}

// The labels of index.html, the switch and the names of cards and colours in the page's language.
async function showLanguage(wanted) {
  lang = wanted;
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const attribute of ["placeholder", "aria-label", "alt"]) {
    for (const node of document.querySelectorAll(`[data-i18n-${attribute}]`)) {
      node.setAttribute(attribute, t(node.getAttribute(`data-i18n-${attribute}`)));
    }
  }
  for (const button of document.querySelectorAll(".langs button")) button.setAttribute("aria-pressed", String(button.dataset.lang === lang));
  if ($("#link").classList.contains("up")) $("#link").textContent = t("live");  // said before the switch
  try { words = await api("GET", `/api/words?lang=${lang}`); } catch (error) { words = null; }
  if (state) render();
}

// "1 press", "2 presses"; French keeps the singular for 0 and 1.
function count(n, key) {
  const [one, many] = t(key);
  return `${n} ${(lang === "fr" ? n <= 1 : n === 1) ? one : many}`;
}

let state = null;       // the last /api/state
let rules = {};         // ruleset id -> its game/rules entry
let scorings = {};
let refreshTimer = null;

// ---- small helpers ----------------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : String(child));
  return node;
}

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function cardName(card) {
  if (/^\d+$/.test(card)) return card;
  if (lang !== "en" && words && words.cards[card]) return words.cards[card];
  return card.split("-").map((word) => word[0].toUpperCase() + word.slice(1)).join(" ")
    .replace("Wild Attack", "Wild Attack-Attack");
}

function code() { return localStorage.getItem(CODE_KEY) || ""; }

class ApiFailure extends Error {
  constructor(status, body) {
    super((body && body.error && body.error.message) || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

async function api(method, path, body) {
  const headers = {};
  if (code()) headers["X-Join-Code"] = code();
  if (chosenLang()) headers["Accept-Language"] = chosenLang();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const type = response.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) throw new ApiFailure(response.status, data);
  return data;
}

function showError(error) {
  const banner = $("#banner");
  let text = error.message;
  if (error.status === 403) text = t("refused", error.message);
  else if (error.status === 503) text = `⟳ ${error.message}`;
  else text = `✖ ${text}`;
  $("#banner-text").textContent = text;
  banner.hidden = false;
}

function clearError() { $("#banner").hidden = true; }

// Each tap is answered next to the "what now" bar, which stays in view: the daemon's own words
// when it says any (texts in the page's language), else the page's label for what was done.
function reply(text, bad) {
  const line = $("#now-reply");
  line.textContent = text;
  line.className = `now-reply ${bad ? "bad" : "ok"}`;  // cut to two lines again
  line.hidden = !text;
}

function replyText(answer, label) {
  const said = answer && Array.isArray(answer.messages) ? answer.messages.filter(Boolean) : [];
  if (said.length) return t("said", said.join(" · "));
  return label ? t("said", label) : t("done");
}

async function act(path, body, label) {
  try {
    const before = $("#moment").dataset.key;
    const answer = await api("POST", path, body === undefined ? {} : body);
    clearError();
    reply(replyText(answer, label), false);
    await refresh();
    // This tap brought a decision (accept or challenge, the Minions counts...): its buttons come
    // into view under the bar, wherever the tap was made.
    const moment = $("#moment");
    if (moment.dataset.key !== before && moment.querySelector(".accent")) moment.scrollIntoView({ block: "nearest" });
    return answer || {};
  } catch (error) {
    showError(error);
    reply($("#banner-text").textContent, true);
    return null;
  }
}

// ---- the picker: colours and players ------------------------------------------------------------

function pick(title, choices) {
  const dialog = $("#picker");
  $("#picker-title").textContent = title;
  const box = $("#picker-choices");
  box.replaceChildren(...choices.map(({ value, label, swatch }) => {
    const button = el("button", { type: "submit", value, "data-choice": value });
    if (swatch) button.append(el("span", { class: `swatch ${swatch}`, "aria-hidden": "true" }));
    button.append(label);
    return button;
  }));
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue || null), { once: true });
    dialog.returnValue = "";
    dialog.showModal();
  });
}

const colorName = (c) => (lang !== "en" && words && words.colors[c]) || c;
const gameColors = () => (state && state.game && state.game.colors) || COLORS;
const pickColor = (title) => pick(title, gameColors().map((c) => ({ value: c, label: colorName(c), swatch: c })));

function pickPlayer(title, except) {
  const names = (state.game ? state.game.players.map((p) => p.name) : []).filter((n) => n !== except);
  return pick(title, names.map((name) => ({ value: name, label: name })));
}

// ---- rendering ----------------------------------------------------------------------------------

function setLink(up, text) {
  const link = $("#link");
  link.className = `link ${up ? "up" : "down"}`;
  link.textContent = text || t(up ? "live" : "reconnectingLauncher");
  // What is shown is the last known state, not the present one: say so until the link is back.
  document.body.classList.toggle("stale", !up);
  if (!up) {
    $("#launcher-state").textContent = t("notReachable");
    $("#launcher-state").classList.add("trouble");
  }
}

function owedBy(game) {
  const owed = {};
  for (const item of game.queue) {
    const before = owed[item.player];
    const presses = item.presses === null ? t("untilCards") : item.presses;
    owed[item.player] = before === undefined ? presses
      : (typeof before === "number" && typeof presses === "number" ? before + presses : `${before} + ${presses}`);
  }
  return owed;
}

// Why a player owes presses, beside the count (hit-fire says it already: "presses until cards come out").
const REASONS = { uno: "uno_reason", hint: "hint_reason", "all-hit": "wild-all-hit", "first-card": "firstCard",
  "last-card-attack": "lastCardAttack" };

function renderDamage(game) {
  // What is wrong with the game log and what to do, from game/status (controller/log/damage.py).
  const damage = game ? game.damage : state.game_damage;
  $("#damage").hidden = !damage;
  if (damage) $("#damage-text").textContent = t("damage", damage.what, damage.todo);
}

function renderTurn(game) {
  const match = game ? game.match : null;
  $("#chain").hidden = true;
  $("#catchable-line").hidden = true;
  if (!game) {
    $("#round-line").textContent = "";
    $("#turn-color").hidden = true;
    $("#turn-name").textContent = t("noGame");
    $("#turn-what").textContent = state.game_error || t("startOne");
    $("#direction").textContent = "";
    return;
  }
  $("#round-line").textContent = t("roundLine", game.round, (t("rulesetName") || {})[game.ruleset] || game.ruleset, game.dealer);
  $("#direction").textContent = t(game.direction === "clockwise" ? "clockwise" : "counterclockwise");
  if (match.match_over) {
    const winner = Array.isArray(match.winner) ? match.winner.join(t("and")) : match.winner;
    $("#turn-name").textContent = `🏆 ${winner}`;
    $("#turn-what").textContent = t("winsMatch");
  } else if (game.owed && deviceOf(game) !== "launcher") {
    // Classic, Despicable Me 4: the launcher deals what is owed; Blast: insertions owed.
    $("#turn-name").textContent = game.owed.player;
    $("#turn-what").textContent = deviceOf(game) === "blaster" ? t("nowInserts", game.owed.inserts ?? game.owed.presses)
      : t("nowDealt", game.owed.cards ?? game.owed.presses);
  } else if (game.owed) {
    const owed = game.owed;
    $("#turn-name").textContent = owed.player;
    let what = owed.presses === null ? t("pressesUntil") : t("owesPresses", owed.presses);
    if (game.chain && game.chain.target === owed.player && !["uno", "hint"].includes(owed.reason)) what += t("orStacks");
    if (REASONS[owed.reason]) what += ` (${owed.reason === "all-hit" ? cardName(REASONS[owed.reason]) : t(REASONS[owed.reason])})`;
    $("#turn-what").textContent = what;
  } else if (game.round_over) {
    $("#turn-name").textContent = t("wonRound", game.winner, game.round);
    $("#turn-what").textContent = t("enterHands");
  } else if (game.awaiting === "first_attack") {
    $("#turn-name").textContent = game.turn;
    $("#turn-what").textContent = t("namesAttack");
  } else if (deviceOf(game) !== "launcher") {
    // Wild Mega Minions: the table enters the counts for whoever played it.
    $("#turn-name").textContent = game.awaiting === "minions" ? minionsPlayer(game) : game.turn;
    $("#turn-what").textContent = momentText(game);
  } else {
    $("#turn-name").textContent = game.turn;
    $("#turn-what").textContent = t("playsOrPresses");
  }
  // The colour a Wild named (or the pile's): a swatch and its name, never colour alone.
  const color = $("#turn-color");
  color.hidden = !game.color || match.match_over;
  if (game.color) {
    const named = String(game.top_card || "").startsWith("wild");  // a Wild named it; else the pile's
    color.replaceChildren(el("span", { class: `swatch ${game.color}`, "aria-hidden": "true" }),
      t(named ? "colourNamed" : "colourPile", colorName(game.color)));
  }
  if (game.chain) {
    const chain = game.chain;
    $("#chain").textContent = t(chain.stacks ? "chain" : "chainOpen", chain);
    $("#chain").hidden = false;
  }
  if (catchTarget(game)) {
    $("#catchable-line").textContent = t("catchable", catchTarget(game));
    $("#catchable-line").hidden = false;
  }
}

// ---- the moment: what it needs, and only what it allows --------------------------------------------

// "launcher" (UNO Attack: presses), "dealer" (classic, Despicable Me 4: the launcher deals), "blaster".
function deviceOf(game) {
  const rs = game ? rules[game.ruleset] : null;
  if (rs && rs.device) return rs.device;
  if (game && ["classic", "despicable-me-4"].includes(game.ruleset)) return "dealer";
  return game && game.ruleset === "blast" ? "blaster" : "launcher";
}

// Whom a catch is offered against: a player the game knows may be on their last card without
// having said Uno (catchable_players), not merely the last one to play (catchable, older launcherd).
function catchTarget(game) {
  if (!game) return null;
  if (Array.isArray(game.catchable_players)) return game.catchable_players[0] || null;
  return game.catchable || null;
}

// The daemon's own "what now" when it says one (a newer launcherd), else the page's.
function daemonWhatNow(game) {
  for (const key of ["what_now", "now"]) {
    const value = game[key];
    if (typeof value === "string" && value) return value;
    if (value && typeof value.text === "string" && value.text) return value.text;
  }
  return null;
}

function momentText(game) {
  const said = daemonWhatNow(game);
  if (said) return said;
  const p = game.turn;
  const challenge = game.challenge || {};
  switch (game.awaiting) {
    case "challenge_or_accept": return t("nowChallenge", challenge.challenger || p, challenge.player || "?");
    case "challenge_result": return t("nowResult", challenge.challenger || p, challenge.player || "?");
    case "minions": return t("nowMinions", minionsPlayer(game));
    case "play_or_pass": return t("nowDrawn", p);
    default: break;
  }
  if (deviceOf(game) === "blaster") return t("nowBlast", p);
  if (game.top_card === null && !game.queue.length) return `${p}: ${t("nowTurnUp")}`;
  return t("nowDealer", p);
}

function minionsPlayer(game) {
  // Whoever played the Wild Mega Minions Power: the one before the player whose move it is.
  const names = game.players.map((x) => x.name);
  const at = names.indexOf(game.turn);
  const step = game.direction === "clockwise" ? -1 : 1;
  return names[(at + step + names.length) % names.length] || game.turn;
}

// The actions the moment allows: game/status's `choices` when launcherd says them, else derived
// from the ruleset and the state as launcherd checks them (controller/rules/classic.py, blast.py).
function choicesNow(game) {
  if (!game || game.match.match_over || game.round_over) return new Set();
  const device = deviceOf(game);
  const owed = game.queue.length > 0;
  if (Array.isArray(game.choices)) {
    const listed = new Set(game.choices.map((c) => String(typeof c === "string" ? c : (c.action || c.method || c.type || c.id || ""))
      .replace(/^game\//, "").replace(/_/g, "-").split(":")[0]));
    // Out of turn, whatever the moment: Uno, and catching the player launcherd marks.
    listed.add("uno");
    if (catchTarget(game)) listed.add("catch");
    // In a dealer game a draw is the button's press (the launcher deals exactly one card).
    if (device === "dealer" && listed.has("draw")) listed.add("press");
    if (device === "launcher" && owed && listed.has("play")) {  // presses owed: only a Hit answers a Mega Hit
      listed.delete("play");
      if (game.chain) listed.add("play-hit");
    }
    return listed;
  }
  const allowed = new Set(["uno"]);
  if (catchTarget(game)) allowed.add("catch");
  if (device === "launcher") {
    // Presses owed: nothing is played, but a Hit card answers an open Mega Hit (controller/rules/game.py).
    if (game.awaiting === "first-attack" || game.awaiting === "first_attack") allowed.add("first-attack");
    else if (!owed) allowed.add("play");
    else if (game.chain) allowed.add("play-hit");
    allowed.add("press");
    return allowed;
  }
  if (device === "blaster") {
    if (!owed) allowed.add("play");
    allowed.add("insert");
    if (game.top_card === null && !owed) allowed.add("turn-up");
    return allowed;
  }
  // dealer: a deal under way waits (a press restarts one an undo held); a decision pending is all there is
  if (owed) {
    if (state.launcher.state === "ready") allowed.add("press");  // not while it deals: it ignores a press then
    return allowed;
  }
  switch (game.awaiting) {
    case "challenge_or_accept": return new Set(["accept", "challenge"]);
    case "challenge_result": return new Set(["challenge-result"]);
    case "minions": return new Set(["minions"]);
    case "play_or_pass": allowed.add("play"); allowed.add("pass"); return allowed;  // no second draw
    default: break;
  }
  allowed.add("play");
  allowed.add("draw");
  allowed.add("press");
  if (game.top_card === null) allowed.add("turn-up");
  return allowed;
}

function button(id, label, onclick, extra = "") {
  return el("button", { type: "button", id, class: `wide ${extra}`.trim(), onclick }, label);
}

function renderMoment(game, allowed) {
  const box = $("#moment");
  const key = JSON.stringify([game && game.match_id, game && game.round, game && game.awaiting, game && game.top_card,
    game && game.queue.length, game && game.turn, game && game.challenge, [...allowed].sort(), lang]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const parts = [];
  if (!game) { box.replaceChildren(); return; }
  const challenge = game.challenge || {};
  if (allowed.has("turn-up")) {
    parts.push(button("turn-up", t(deviceOf(game) === "dealer" ? "turnUp" : "turnUpByHand"), turnUp, "accent"));
  }
  if (allowed.has("accept")) {
    parts.push(button("accept", t("accept", challenge.challenger || game.turn), () => act("/api/game/accept", {}, t("accept", challenge.challenger || game.turn)), "accent"));
  }
  if (allowed.has("challenge")) {
    const label = t("challenge", challenge.challenger || game.turn, challenge.player || "?");
    parts.push(button("challenge", label, () => act("/api/game/challenge", {}, label), "accent"));
  }
  if (allowed.has("challenge-result")) {
    parts.push(button("legal", t("legal", challenge.challenger || game.turn), () => act("/api/game/challenge-result", { result: "legal" }), "accent"));
    parts.push(button("illegal", t("illegal", challenge.player || "?"), () => act("/api/game/challenge-result", { result: "illegal" }), "accent"));
  }
  if (allowed.has("minions")) {
    const by = minionsPlayer(game);
    const inputs = game.players.filter((x) => x.name !== by).map((x) => el("label", { class: "count" }, `${x.name} `,
      el("input", { type: "number", inputmode: "numeric", min: "0", max: "30", value: "0", name: x.name, required: "" })));
    const form = el("form", { id: "minions-form" }, el("p", { class: "prompt" }, t("minionsHelp")), ...inputs,
      el("button", { type: "submit", class: "wide accent" }, t("minionsGo")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const counts = {};
      for (const input of form.querySelectorAll("input")) counts[input.name] = Number(input.value) || 0;
      act("/api/game/minions", { counts });
    });
    parts.push(form);
  }
  if (allowed.has("draw")) parts.push(button("draw", t("draw"), () => act("/api/game/draw", {}, t("draw"))));
  if (allowed.has("pass")) parts.push(button("pass", t("pass"), () => act("/api/game/pass", {}, t("pass"))));
  if (allowed.has("insert") && !blasterFitted()) {
    const p = game.queue.length ? game.queue[0].player : game.turn;
    parts.push(button("insert-safe", t("insertSafe", p), () => act("/api/game/insert", { blast: false, cards: 0 })));
    parts.push(button("insert-blast", t("insertBlast", p), async () => {
      const n = await pick(t("howMany"), Array.from({ length: 12 }, (_, i) => ({ value: String(i + 1), label: String(i + 1) })));
      if (n) act("/api/game/insert", { blast: true, cards: Number(n) });
    }));
  }
  box.replaceChildren(...parts);
}

function blasterFitted() { return Boolean(state && state.launcher && Array.isArray(state.launcher.slots)); }

async function turnUp() {
  // The launcher deals one card face up; then the table says which it is (an action card is
  // ignored by the rules: the button stays, for the next one).
  if (deviceOf(state.game) === "dealer" && !(await act("/api/turn-up", {}, t("turnUp")))) return;
  const rs = rules[state.game.ruleset];
  const card = await pick(t("whichFirst"), rs.cards.map((c) => ({ value: c.card, label: cardName(c.card) })));
  if (!card) return;
  const body = { card };
  const color = await pickColor(t("whichColour", cardName(card)));
  if (!color) return;
  body.color = color;
  act("/api/game/turn-up", body);
}

function renderNow(game) {
  // The launcher needs a person first (jammed, empty, lid open, halted, a motion waiting for a
  // press): said in the bar too, a tap away from its button.
  const advice = state.launcher_advice;
  const trouble = !["ready", "launching", "firing", "sleeping"].includes(advice.state) || Boolean(state.launcher.pending);
  $("#now-launcher").hidden = !trouble;
  if (trouble) $("#now-launcher").textContent = state.launcher.pending ? `⏸ ${state.launcher.pending_text}` : `${advice.symbol} ${advice.text}`;
  const who = $("#now-who");
  const what = $("#now-what");
  if (!game) {
    who.textContent = t("noGame");
    what.textContent = t("nowNoGame");
    $("#now-said").hidden = true;
    lastChain = null;
    return;
  }
  who.textContent = $("#turn-name").textContent;
  const sentence = $("#turn-what").textContent;
  // "Bob: accept 4 cards, …" already names the player: the bar does not say it twice, and a
  // sentence whose subject is the player ("Ann starts once …") is said whole, without the name before it.
  const named = who.textContent.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  what.textContent = sentence.replace(new RegExp(`^${named}\\s*:\\s*`), "");
  if (who.textContent && new RegExp(`^${named}\\s`).test(what.textContent)) who.textContent = "";
  // The daemon's latest word, unless the tap's answer says it already.
  const last = state.messages.length ? state.messages[state.messages.length - 1].text : "";
  const answered = $("#now-reply").hidden ? "" : $("#now-reply").textContent;
  // A Mega Hit chain whose target has pressed all it owed: say why the turn goes where it goes (the
  // match's option), until that player moves.
  const targetOwes = lastChain && game.queue.some((o) => o.player === lastChain.target);
  if (game.chain && game.chain.stacks) {
    lastChain = { ...game.chain, match: game.match_id };
  } else if (lastChain && (lastChain.match !== game.match_id || game.round_over)) {
    lastChain = null;
  } else if (lastChain && !targetOwes) {
    const resume = (game.options || {}).resume || "after_first_attacker";
    chainNote = { text: t("chainOver", lastChain.started_by, resume === "first_attacker", game.turn), turn: game.turn, match: game.match_id };
    lastChain = null;
  }
  if (chainNote && (chainNote.turn !== game.turn || chainNote.match !== game.match_id || game.owed)) chainNote = null;
  const said = chainNote ? chainNote.text : last;
  $("#now-said").textContent = said;
  $("#now-said").hidden = !said || (!chainNote && answered.includes(last));
}
let lastChain = null;
let chainNote = null;

function renderLauncher() {
  const advice = state.launcher_advice;
  const line = $("#launcher-state");
  line.textContent = `${advice.symbol} ${advice.text}`;
  line.classList.toggle("trouble", !["ready", "launching", "firing"].includes(advice.state));
  const burst = state.last_burst;
  $("#last-burst").textContent = !burst ? t("noPress")
    : burst.cards ? t("took", burst.player, burst.cards) : t("pressedNothing", burst.player);
  const reload = state.game ? state.game.reload_advice : null;
  const hopper = state.launcher.hopper;
  $("#hopper").textContent = reload ? reload.text
    : (hopper === null ? t("hopperUnknown") : t("holds", hopper));
  // What waits for a person's press (status pending), said in the page's language, with "Go on".
  const pending = state.launcher.pending;
  $("#pending").hidden = !pending;
  $("#pending-text").textContent = pending ? state.launcher.pending_text : "";
  // Halted (a fault, an e-stop, a restart after the motor may have been on): why, and "Reset".
  const halted = state.launcher.state === "halted";
  $("#halted").hidden = !halted;
  $("#halted-text").textContent = halted ? state.launcher.reason : "";
  const blaster = state.launcher.device === "blaster";
  for (const id of ["#hopper", "#last-burst", "#reload-box"]) $(id).hidden = blaster;
  const needed = !blaster && ((reload && reload.reload) || advice.state === "empty");
  $("#reload-text").textContent = needed ? t("reloadNow") : "";
  $("#reload-text").hidden = !needed;
  if (needed && !$("#reload-box").dataset.opened) {
    $("#reload-box").open = true;  // once: a reader who closes it keeps it closed
    $("#reload-box").dataset.opened = "1";
  }
  if (!needed) delete $("#reload-box").dataset.opened;
  if ($("#reload-box").open) proposeRefill();
  // With a blaster fitted: its slots and what it did last (status/get's blaster keys).
  const slots = state.launcher.slots;
  $("#blaster").hidden = !Array.isArray(slots);
  if (Array.isArray(slots)) {
    $("#blaster-slots").replaceChildren(...slots.map((full, i) => el("span", { class: `slot ${full ? "full" : ""}`,
      "data-slot": i + 1, title: t("slot", i + 1, full), "aria-label": t("slot", i + 1, full) }, String(i + 1))));
    const last = state.launcher.last;
    $("#blaster-last").textContent = last && last.outcome ? t("blasterLast", last) : "";
  }
}

let refillAsked = 0;
async function proposeRefill() {
  // The count the game proposes (game/refill-count): put in the input unless someone typed.
  const input = $("#reload-cards");
  if (input.dataset.typed || Date.now() - refillAsked < 1500 || !state.game || !code()) return;
  refillAsked = Date.now();
  try {
    const { cards } = await api("POST", "/api/game/refill-count", {});
    if (cards === null || cards === undefined || input.dataset.typed) return;
    input.value = cards;
    $("#reload-proposed").textContent = t("proposed", cards);
  } catch (error) { /* no code yet, or no round: the reader types the count */ }
}

function renderPlayers(game) {
  const body = $("#players tbody");
  if (!game) { body.replaceChildren(); return; }
  const owed = owedBy(game);
  const totals = game.match.totals || {};
  body.replaceChildren(...game.players.map((p) => el("tr", { class: p.name === game.turn ? "current" : "", "data-player": p.name },
    el("td", {}, p.name), el("td", { "data-owes": p.name }, owed[p.name] === undefined ? "–" : owed[p.name]),
    el("td", { "data-cards": p.name }, p.cards_taken), el("td", {}, p.presses), el("td", {}, totals[p.name] ?? 0))));
}

function renderActions(game) {
  const rs = game ? rules[game.ruleset] : null;
  const allowed = choicesNow(game);
  const hitsOnly = Boolean(game && !allowed.has("play") && allowed.has("play-hit"));
  const playing = Boolean(game && (allowed.has("play") || hitsOnly));
  // The sim's button: not while a decision is pending, and a blaster has none.
  $("#press").hidden = !state.sim || blasterFitted() || Boolean(game && !game.round_over && !game.match.match_over && !allowed.has("press"));
  renderMoment(game, allowed);
  $("#players-panel").hidden = !game;
  $("#end-round").hidden = !game || game.match.match_over;
  // Where launcherd knows the hands (dealer games), "last card" only for a hand of one.
  const mover = game ? game.players.find((x) => x.name === game.turn) : null;
  const lastPossible = playing && !(mover && typeof mover.hand === "number" && mover.hand !== 1);
  $("#last-card-box").hidden = !lastPossible;
  if (!lastPossible) $("#last-card").checked = false;
  for (const button of document.querySelectorAll(".in-game")) button.hidden = !game;
  const box = $("#cards");
  if (!rs || !playing) {
    box.replaceChildren();
  } else if (box.dataset.ruleset !== `${rs.id}#${lang}#${words ? words.lang : ""}`) {
    // Rebuilt when the names arrive too: a render between a switch of language and its names
    // would otherwise keep the old language's names on the buttons.
    box.dataset.ruleset = `${rs.id}#${lang}#${words ? words.lang : ""}`;
    box.replaceChildren(...rs.cards.map(({ card, notes }) => {
      const kinds = [];
      if (/^\d+$/.test(card)) kinds.push("number");
      if (notes.some((n) => n.includes("presses"))) kinds.push("attack");
      if (card.startsWith("wild")) kinds.push("wild");
      // What the card does, without the command-line options the notes name ("(--color)").
      const said = notes.map((n) => n.replace(/\s*\((?:--|game )[^)]*\)/g, "")).join("; ");
      return el("button", { type: "button", class: kinds.join(" "), "data-card": card, title: said,
        onclick: () => playCard(card) }, cardName(card));
    }));
  }
  if (!playing) delete box.dataset.ruleset;
  for (const cardButton of box.querySelectorAll("button")) cardButton.hidden = hitsOnly && !cardButton.classList.contains("attack");
  $("#first-attack-box").hidden = !allowed.has("first-attack");
  const catchButton = $("#catch");
  // Catch only a player the daemon marks as on their last card without Uno.
  catchButton.hidden = !(catchTarget(game) && allowed.has("catch"));
  if (catchTarget(game)) catchButton.textContent = t("catchButton", catchTarget(game));
  $("#hint").hidden = !(rs && rs.hint_penalty && game && !game.round_over && !game.match.match_over);
  $("#uno").hidden = !(game && allowed.has("uno"));
}

function renderEndRound(game) {
  const winner = $("#winner");
  const hands = $("#hands");
  if (!game) { winner.replaceChildren(); hands.replaceChildren(); return; }
  const names = game.players.map((p) => p.name);
  const key = names.join("\n") + `#${game.round}#${lang}`;
  if (hands.dataset.key === key) {
    if (game.round_over && game.winner && winner.value !== game.winner) {
      winner.value = game.winner;
      updateHands();
    }
    return;
  }
  hands.dataset.key = key;
  winner.replaceChildren(...names.map((n) => el("option", { value: n }, n)));
  winner.value = game.winner || names[0];
  hands.replaceChildren(...names.map((n) => {
    const input = el("input", { name: n, autocomplete: "off", placeholder: t("handPlaceholder") });
    // Tapping the ruleset's cards writes the hand (typed text is still accepted).
    const add = el("button", { type: "button", class: "add-card", "data-add-card": n, onclick: async () => {
      const rs = rules[game.ruleset];
      const card = await pick(t("whichCard", n), rs.cards.map((c) => ({ value: c.card, label: cardName(c.card) })));
      if (card) input.value = input.value.trim() ? `${input.value.trim()}, ${card}` : card;
    } }, t("addCard"));
    const clear = el("button", { type: "button", class: "add-card", onclick: () => { input.value = ""; } }, t("clearHand"));
    return el("div", { "data-hand": n, class: "hand" }, el("label", {}, t("hand", n), input), el("div", { class: "row" }, add, clear));
  }));
  updateHands();
}

function updateHands() {
  for (const hand of document.querySelectorAll("#hands [data-hand]")) {
    hand.hidden = hand.dataset.hand === $("#winner").value;
  }
}

function renderScores() {
  const table = $("#scores");
  const scores = state.scores;
  if (!scores) {
    table.replaceChildren();
    $("#scores-line").textContent = t("noMatch");
    $("#match-winner").hidden = true;
    return;
  }
  const players = scores.players;
  $("#scores-line").textContent = t("scoresLine", scores.scoring, scores.target) +
    (scores.match_over ? "" : t("next", scores.round, scores.dealer));
  const head = el("tr", {}, el("th", { scope: "col" }, t("round")), ...players.map((n) => el("th", { scope: "col" }, n)), el("th", { scope: "col" }, t("winner")));
  const rows = scores.rounds.map((r) => el("tr", {}, el("td", {}, r.round),
    ...players.map((n) => el("td", {}, r.points[n] ?? "")), el("td", {}, r.winner)));
  const total = el("tr", { class: "total" }, el("th", { scope: "row" }, t("total")),
    ...players.map((n) => el("td", { "data-total": n }, scores.totals[n])), el("td", {}, ""));
  table.replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows, total));
  const winner = $("#match-winner");
  winner.hidden = !scores.match_over;
  if (scores.match_over) {
    winner.textContent = t("matchWinner", Array.isArray(scores.winner) ? scores.winner.join(t("and")) : scores.winner);
  }
}

function renderMessages() {
  $("#messages").replaceChildren(...state.messages.slice(-8).reverse().map((m) => el("li", {}, m.text)));
}

function renderGameLayer() {
  // Whether launcherd's game layer is up (status/get's game_layer): its reason in the page's language.
  const layer = state.game_layer;
  const down = Boolean(layer && layer.state !== "up");
  $("#game-layer").hidden = !down;
  if (down) $("#game-layer").textContent = t(layer.state === "starting" ? "gameStarting" : "gameDown", layer.reason);
}

// The matches set aside (game/history): resumable from the page.
let historyKey = null;
async function renderMatches(game) {
  // game/history replays the log (a heavy read, counted against a reader that has not joined):
  // asked again only when the table's match changes, or, without one, when launcherd said something.
  const said = state.messages.length ? state.messages[state.messages.length - 1].n : 0;
  const key = `${game ? game.match_id : `none#${said}`}#${lang}`;
  if (historyKey === key) return;
  historyKey = key;
  let matches;
  try {
    matches = await api("POST", "/api/game/history", { limit: 8 });
  } catch (error) {
    return;
  }
  const aside = matches.filter((m) => !m.current && !m.finished && !m.error).reverse();
  $("#matches-panel").hidden = !aside.length;
  $("#matches").replaceChildren(...aside.map((m) => el("li", { "data-match": m.id }, el("span", {}, t("matchEntry", m)),
    el("button", { type: "button", "data-resume": m.id, onclick: () => act("/api/game/resume", { match: m.id }, t("resume")) }, t("resume")))));
}

function placeNewGame(game) {
  // Without a game, New game comes first under the turn panel, open: the top says it is below.
  // The matches set aside come first: resuming one is as likely as starting anew.
  const section = $("#new-game");
  if (!game) {
    if ($("#turn").nextElementSibling !== $("#matches-panel")) {
      $("#turn").after($("#matches-panel"));
      $("#matches-panel").after(section);
      $("#new-game-box").open = true;
    }
  } else if ($("#turn").nextElementSibling === $("#matches-panel")) {
    $("#messages-panel").before(section);
    section.before($("#matches-panel"));
    $("#new-game-box").open = false;
  }
}

function render() {
  const game = state.game;
  renderGameLayer();
  placeNewGame(game);
  renderTurn(game);
  renderDamage(game);
  renderLauncher();
  renderPlayers(game);
  renderActions(game);
  renderEndRound(game);
  renderScores();
  renderMessages();
  renderNow(game);
  renderMatches(game);
  renderTableCode();
  if ($("#stats-box").open) loadStats();
}

// The table display: the join code, big, and the QR code of the page's address on the table's network.
function renderTableCode() {
  const table = document.body.classList.contains("table-view");
  const on = table && Boolean(code());
  $("#table-code").hidden = !table;
  $("#table-code").classList.toggle("small", !on);
  if (!table) return;
  if (!on) { $("#table-code").textContent = t("tableNeedsCode"); return; }
  $("#table-code").textContent = `${t("joinCode")}: ${code()}`;
  if ($("#qr-figure").hidden && !qrAsked) { qrAsked = true; showQr(); }
}
let qrAsked = false;

// ---- statistics -----------------------------------------------------------------------------------

function barChart(title, rows, unit, alt) {
  const width = 320, rowHeight = 30, label = 90;
  const top = Math.max(1, ...rows.map((r) => r.value));
  const chart = svg("svg", { class: "chart", viewBox: `0 0 ${width} ${rows.length * rowHeight + 28}`, role: "img",
    "aria-label": `${title}: ` + rows.map((r) => `${r.name} ${r.value}`).join(", ") });
  chart.append(svg("text", { x: 0, y: 16 }, title));
  rows.forEach((r, i) => {
    const y = 28 + i * rowHeight;
    const length = Math.round((width - label - 90) * r.value / top);  // room for "12.5 min" after the bar
    chart.append(svg("text", { x: 0, y: y + 18 }, r.name.slice(0, 10)));
    chart.append(svg("rect", { class: alt ? "bar alt" : "bar", x: label, y: y + 4, width: Math.max(length, 2), height: rowHeight - 10 }));
    chart.append(svg("text", { x: label + length + 6, y: y + 18 }, `${r.value}${unit}`));
  });
  return chart;
}

function statsTable(players, extra = []) {
  // Figures as rows, players as columns: seven figures would not fit a phone's width as columns.
  const rows = [["presses", "presses"], ["cards", "cardsTaken"], ["biggest_burst", "biggestBurst"],
    ["longest_dry_streak", "dryStreak"], ["hits_sent", "hitsSent"], ["hits_received", "hitsReceived"],
    ["rounds_won", "roundsWon"], ...extra];
  const names = Object.keys(players);
  return el("div", { class: "scroll" }, el("table", { class: "grid" },
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, ""), ...names.map((n) => el("th", { scope: "col" }, n)))),
    el("tbody", {}, ...rows.map(([key, label]) => el("tr", {}, el("th", { scope: "row" }, t(label)),
      ...names.map((n) => el("td", {}, players[n][key])))))));
}

async function loadStats() {
  const box = $("#stats");
  let result;
  try {
    result = await api("GET", "/api/stats");
  } catch (error) {
    box.replaceChildren(el("p", { class: "small" }, t("statsUnavailable", error.message)));
    return;
  }
  const parts = [];
  const match = result.match;
  if (match) {
    parts.push(el("h2", {}, t("match", result.match_id)), statsTable(match.players));
    const facts = [];
    if (match.biggest_burst) facts.push(t("burstFact", match.biggest_burst.player, match.biggest_burst.cards));
    if (match.longest_dry_streak) facts.push(t("dryFact", match.longest_dry_streak.player, match.longest_dry_streak.presses));
    if (match.longest_mega_hit) facts.push(t("megaFact", match.longest_mega_hit));
    parts.push(el("ul", {}, ...facts.map((f) => el("li", {}, f))));
    parts.push(barChart(t("cardsTaken"), Object.entries(match.players).map(([name, f]) => ({ name, value: f.cards })), ""));
    if (match.rounds.length) {
      const minutes = match.rounds.some((r) => r.seconds >= 120);
      parts.push(barChart(t(minutes ? "minutesPerRound" : "secondsPerRound"), match.rounds.map((r) => ({
        name: t("roundN", r.round), value: minutes ? Math.round(r.seconds / 6) / 10 : Math.round(r.seconds) })),
        minutes ? " min" : " s", true));
    }
  }
  const history = result.history;
  parts.push(el("h2", {}, t("allMatches", history.matches, history.rounds)));
  if (Object.keys(history.players).length) {
    parts.push(statsTable(history.players, [["matches", "matches"], ["matches_won", "matchesWon"]]));
  }
  box.replaceChildren(...parts);
}

// ---- actions ----------------------------------------------------------------------------------------

async function playCard(card) {
  const rs = rules[state.game.ruleset];
  const entry = rs.cards.find((c) => c.card === card);
  const body = { card };
  if (card.startsWith("wild")) {
    const color = await pickColor(t("whichColour", cardName(card)));
    if (!color) return;
    body.color = color;
  } else {
    // A coloured card shows its colour (launcherd refuses it without): the pile's, unless it is the
    // same card as the pile's or answers a Mega Hit, where it may be any.
    const pile = state.game;
    const only = pile.color && pile.top_card && pile.top_card !== card && !pile.chain ? pile.color : null;
    const color = only || await pickColor(t("whichColour", cardName(card)));
    if (!color) return;
    body.color = color;
  }
  if (entry.notes.some((n) => n.includes("names a player"))) {
    const target = await pickPlayer(t("whichPlayer", cardName(card)), state.game.turn);
    if (!target) return;
    body.target = target;
  }
  if ($("#last-card").checked) body.last = true;
  if (await act("/api/game/play", body)) $("#last-card").checked = false;
}

function bind() {
  for (const button of document.querySelectorAll(".langs button")) {
    button.addEventListener("click", async () => {
      localStorage.setItem(LANG_KEY, button.dataset.lang);  // remembered on this phone
      await showLanguage(button.dataset.lang);
      rules = {};  // the rule set names in the new language
      refresh();
    });
  }
  $("#banner-close").addEventListener("click", clearError);
  $("#view-toggle").addEventListener("click", () => {
    const on = document.body.classList.toggle("table-view");
    $("#view-toggle").setAttribute("aria-pressed", String(on));
    $("#view-toggle").dataset.i18n = on ? "phoneView" : "tableView";
    $("#view-toggle").textContent = t($("#view-toggle").dataset.i18n);
    if (state) renderTableCode();
  });
  $("#code-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    localStorage.setItem(CODE_KEY, $("#code").value.trim());
    try {
      await api("POST", "/api/code/check", {});
      $("#code-status").textContent = t("codeAccepted");
      $("#code-status").className = "small ok";
      clearError();
    } catch (error) {
      $("#code-status").textContent = error.status === 403 ? t("wrongCode") : `✖ ${error.message}`;
      $("#code-status").className = "small bad";
    }
  });
  $("#press").addEventListener("click", () => act("/api/press", {}, t("pressed")));
  $("#resume").addEventListener("click", () => act("/api/resume"));
  $("#reset").addEventListener("click", () => act("/api/reset"));
  $("#undo").addEventListener("click", () => act("/api/game/undo"));
  $("#repair").addEventListener("click", () => act("/api/game/repair"));
  $("#uno").addEventListener("click", async () => {
    const player = await pickPlayer(t("whoUno"));
    if (player) act("/api/game/uno", { player });
  });
  $("#catch").addEventListener("click", () => act("/api/game/catch", { player: catchTarget(state.game) }));
  $("#hint").addEventListener("click", async () => {
    const player = await pickPlayer(t("whoAdvice"));
    if (player) act("/api/game/hint", { player });
  });
  $("#first-attack").addEventListener("click", async () => {
    const color = await pickColor(t("firstAttackColour"));
    if (!color) return;
    const target = await pickPlayer(t("whoAttacked"), state.game.turn);
    if (target) act("/api/game/first-attack", { color, target });
  });
  $("#reload-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const cards = Number($("#reload-cards").value);
    act("/api/reload", { cards }, `${t("reloaded")}: ${count(cards, "card")}`).then((ok) => {
      if (ok) { delete $("#reload-cards").dataset.typed; $("#reload-box").open = false; }
    });
  });
  $("#winner").addEventListener("change", updateHands);
  $("#end-round-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const winner = $("#winner").value;
    const hands = {};
    for (const input of document.querySelectorAll("#hands input")) {
      if (input.name !== winner && input.value.trim()) hands[input.name] = input.value.trim();
    }
    if (await act("/api/game/end-round", { winner, hands })) {
      $("#end-round-box").open = false;
      delete $("#hands").dataset.key;
    }
  });
  $("#new-rules").addEventListener("change", renderOptions);
  $("#new-scoring").addEventListener("change", () => { $("#scoring-doc").textContent = scoringDoc($("#new-scoring").value); });
  $("#new-game-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const players = $("#new-players").value.split(",").map((n) => n.trim()).filter(Boolean);
    const options = {};
    for (const select of document.querySelectorAll("#new-options select")) options[select.name] = select.value;
    const body = { rules: $("#new-rules").value, players, options, scoring: $("#new-scoring").value,
      target: Number($("#new-target").value) || 500 };
    if ($("#new-force").checked) body.force = true;
    if (await act("/api/game/new", body)) $("#new-game-box").open = false;
  });
  $("#stats-box").addEventListener("toggle", () => { if ($("#stats-box").open) loadStats(); });
  $("#qr-show").addEventListener("click", showQr);
  // A long answer is cut to two lines in the bar; a tap shows it whole.
  for (const id of ["#now-reply", "#now-said"]) $(id).addEventListener("click", () => $(id).classList.toggle("open"));
  $("#abandon").addEventListener("click", async () => {
    if (await pick(t("abandonSure"), [{ value: "yes", label: t("yesAbandon") }])) act("/api/game/abandon", {}, t("abandon"));
  });
  $("#reload-cards").addEventListener("input", () => { $("#reload-cards").dataset.typed = "1"; });
  $("#reload-box").addEventListener("toggle", () => { if ($("#reload-box").open) proposeRefill(); });
}

async function showQr() {
  const headers = { "X-Join-Code": code() };
  if (chosenLang()) headers["Accept-Language"] = chosenLang();
  const response = await fetch("/api/qr.svg", { headers });
  if (!response.ok) {
    showError(new ApiFailure(response.status, await response.json()));
    return;
  }
  $("#qr").src = URL.createObjectURL(await response.blob());
  $("#qr-url").textContent = response.headers.get("X-Page-Url");
  $("#qr-figure").hidden = false;
  $("#qr-show").hidden = true;
}

function renderOptions() {
  // Every option in plain words with a line of explanation (the page's wording table, in the page's
  // language); an option this page does not know yet shows the daemon's own line, without § numbers.
  const rs = rules[$("#new-rules").value];
  $("#rules-doc").textContent = rs ? ((t("rulesetDoc") || {})[rs.id] || rs.source || "") : "";
  const plain = (text) => String(text).replace(/\s*\((?:§\s*\d+|\d{3})\)/g, "").replace(/_/g, " ");
  $("#new-options").replaceChildren(...Object.entries(rs ? rs.options : {}).map(([name, option]) => {
    const [label, choices, help] = (t("options") || {})[name] || [plain(name), null, plain(option.doc)];
    const select = el("select", { name, "data-option": name },
      ...option.choices.map((c) => el("option", { value: c }, (choices && choices[c]) || plain(c))));
    select.value = option.default;
    return el("label", { class: "option" }, el("span", {}, label), select, el("span", { class: "small help" }, help));
  }));
}

function scoringDoc(id) { return (t("scoringDoc") || {})[id] || scorings[id] || ""; }

async function loadRules() {
  // In English whatever the page's language: the card buttons read what each card does from its notes.
  const data = await api("POST", "/api/game/rules?lang=en", {});
  for (const rs of data.rulesets) rules[rs.id] = rs;
  scorings = data.scorings;
  const chosen = $("#new-rules").value;  // a reader's choice outlives a switch of language
  $("#new-rules").replaceChildren(...data.rulesets.map((rs) => el("option", { value: rs.id },
    ((t("rulesetName") || {})[rs.id] || rs.id))));
  if (chosen && rules[chosen]) $("#new-rules").value = chosen;
  $("#new-scoring").replaceChildren(...Object.keys(scorings).map((s) => el("option", { value: s }, (t("scoringName") || {})[s] || s)));
  $("#scoring-doc").textContent = scoringDoc($("#new-scoring").value);
  $("#new-target").value = data.target;
  renderOptions();
}

// ---- live updates -------------------------------------------------------------------------------

let linkEvents = 0;  // link events seen: a state asked before the last one may be older than it

async function refresh() {
  const asked = linkEvents;
  try {
    const fresh = await api("GET", "/api/state");
    if (asked !== linkEvents) { scheduleRefresh(); return; }  // the link changed meanwhile: ask again
    state = fresh;
  } catch (error) {
    if (error.status === 503) setLink(false);
    else setLink(false, t("reconnectingWeb"));
    return;
  }
  setLink(true);
  // Without a choice of the reader's, the page speaks the language launcher-web answered in.
  if (!chosenLang() && state.lang !== lang) await showLanguage(state.lang);
  if (!Object.keys(rules).length) {
    try { await loadRules(); } catch (error) { showError(error); }
  }
  render();
}

function scheduleRefresh() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refresh, 80);
}

function listen() {
  const asked = chosenLang() ? `?lang=${chosenLang()}` : "";
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/events${asked}`);
  socket.addEventListener("message", (message) => {
    const { event, params } = JSON.parse(message.data);
    if (event === "link") {
      linkEvents += 1;
      setLink(params.connected);
      if (params.connected) scheduleRefresh();
      return;
    }
    if (event === "game/code_changed") {
      showError(new Error(t("codeChanged")));
      reply(t("codeChanged"), true);
      $("#code-status").textContent = "";
    }
    scheduleRefresh();
  });
  socket.addEventListener("close", () => {
    setLink(false, t("reconnectingWeb"));
    setTimeout(() => { listen(); refresh(); }, 1000);
  });
}

function start() {
  const params = new URLSearchParams(location.search);
  if (params.get("code")) {
    localStorage.setItem(CODE_KEY, params.get("code"));
    params.delete("code");  // out of the address bar: it would show up in a screenshot or a shared link
    history.replaceState(null, "", location.pathname + (params.toString() ? `?${params}` : ""));
  }
  $("#code").value = code();
  showLanguage(chosenLang() || browserLang());
  bind();
  if (params.get("view") === "table") $("#view-toggle").click();
  refresh();
  listen();
}

document.addEventListener("DOMContentLoaded", start);
