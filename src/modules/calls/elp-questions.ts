/**
 * The ELP test's question bank: the roadside two-step shape, an interview about the trip and the
 * paperwork, then highway signs and message boards described in words. Every voice platform (the
 * Vapi assistant and the simulator) asks these questions, in this order, and the scoring reads the
 * same bank. `expects` is the rubric line for one answer; `example_answer` is a valid answer, used
 * by the simulator and shown to nobody on a real call.
 */
export const ELP_COMPETENCIES = [
  'conversational_communication',
  'instruction_comprehension',
  'sign_recognition',
  'verbal_reporting',
] as const;
export type ElpCompetency = (typeof ELP_COMPETENCIES)[number];

export interface ElpQuestion {
  id: string;
  step: 'interview' | 'signs';
  competency: ElpCompetency;
  text: string;
  expects: string;
  example_answer: string;
}

export const ELP_QUESTIONS: readonly ElpQuestion[] = [
  {
    id: 'trip',
    step: 'interview',
    competency: 'conversational_communication',
    text: 'Where are you coming from and where are you headed?',
    expects: 'names a place of origin and a destination',
    example_answer: 'Coming from Dallas, going to Atlanta with a load of paper goods.',
  },
  {
    id: 'hours',
    step: 'interview',
    competency: 'verbal_reporting',
    text: 'How many hours have you driven today, and is your logbook current?',
    expects: 'gives a number of hours and says something about the logbook or ELD',
    example_answer: 'Six hours today, the logbook is on the tablet and up to date.',
  },
  {
    id: 'license',
    step: 'interview',
    competency: 'instruction_comprehension',
    text: 'Please read me the class and expiry date on your license.',
    expects: 'reads a license class and an expiry date',
    example_answer: 'Class A, it expires March 2028.',
  },
  {
    id: 'papers',
    step: 'interview',
    competency: 'instruction_comprehension',
    text: 'What are you hauling, and where are your shipping papers?',
    expects: 'names the freight and where the bill of lading or papers are kept',
    example_answer: 'Dry goods, the bill of lading is in the door pocket.',
  },
  {
    id: 'equipment',
    step: 'interview',
    competency: 'conversational_communication',
    text: 'Tell me about your truck and trailer and when they were last inspected.',
    expects: 'describes the truck or trailer and gives a last inspection time',
    example_answer: 'A 2021 Freightliner with a 53 foot van, inspected last month.',
  },
  {
    id: 'stop_sign',
    step: 'signs',
    competency: 'sign_recognition',
    text: 'A red eight-sided sign with white letters: what does it tell you to do?',
    expects: 'says to stop completely',
    example_answer: 'Stop completely and look before going.',
  },
  {
    id: 'yield',
    step: 'signs',
    competency: 'sign_recognition',
    text: 'A red and white downward triangle: what does it mean?',
    expects: 'says to yield, slow down or give way',
    example_answer: 'Slow down and give way to the other traffic.',
  },
  {
    id: 'weigh_station',
    step: 'signs',
    competency: 'sign_recognition',
    text: 'A sign reads "All trucks must exit, weigh station open". What do you do?',
    expects: 'says the truck takes the exit to the weigh station or scale',
    example_answer: 'I take the exit and go across the scale.',
  },
  {
    id: 'low_clearance',
    step: 'signs',
    competency: 'sign_recognition',
    text: 'A yellow sign shows "13 ft 6 in" with arrows. What does it warn you about?',
    expects: 'recognises a low clearance or height limit and what to do about it',
    example_answer:
      'The bridge is low, thirteen six, my trailer is thirteen six so I go slow or take another road.',
  },
  {
    id: 'message_board',
    step: 'signs',
    competency: 'verbal_reporting',
    text: 'A message board says "Right lane closed 2 miles ahead". What will you do?',
    expects: 'says to move out of the right lane early or merge left',
    example_answer: 'Move left early and slow down.',
  },
];

/** Passing the interview needs this many valid answers; below it the test ends before the signs. */
export const INTERVIEW_PASS = 3;

export const INTERVIEW_QUESTIONS = ELP_QUESTIONS.filter((q) => q.step === 'interview').length;

/** How one answer is judged, said to whoever judges it (the assistant on the call). */
export const ELP_RUBRIC =
  'An answer is valid when it is relevant to the question and understandable, even with grammar ' +
  'mistakes, a strong accent or short words. It is not valid when it is off the subject, only ' +
  '"yes" or "okay" without content, or cannot be understood. Judge meaning, not grammar.';

export function elpQuestion(id: string): ElpQuestion | undefined {
  return ELP_QUESTIONS.find((q) => q.id === id);
}

/**
 * The next question after the answers recorded so far, or null when the test is over: every
 * question asked, or an interview with fewer than INTERVIEW_PASS valid answers (which ends the test
 * before the signs).
 */
export function nextElpQuestion(answers: { question_id: string; valid: boolean }[]): ElpQuestion | null {
  const answered = new Set(answers.map((a) => a.question_id));
  const interviewValid = answers.filter((a) => a.valid && elpQuestion(a.question_id)?.step === 'interview');
  for (const q of ELP_QUESTIONS) {
    if (answered.has(q.id)) continue;
    if (q.step === 'signs' && interviewValid.length < INTERVIEW_PASS) return null;
    return q;
  }
  return null;
}
